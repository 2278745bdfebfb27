//! A tiny XML tree for reading the authority's sample documents in tests.

use quick_xml::Reader;
use quick_xml::events::Event;

/// An element with its attributes, text and children.
#[derive(Debug, Default, Clone)]
pub struct Node {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<Node>,
}

impl Node {
    /// Parse a whole document; returns the root element.
    pub fn parse(xml: &str) -> Node {
        let mut reader = Reader::from_str(xml);
        let mut stack: Vec<Node> = vec![Node::default()];
        loop {
            match reader.read_event().expect("well-formed XML") {
                Event::Start(e) => {
                    let mut n = Node {
                        name: e.name().as_ref().to_string(),
                        ..Default::default()
                    };
                    for a in e.attributes().flatten() {
                        n.attrs.push((a.key.as_ref().to_string(), a.value.to_string()));
                    }
                    stack.push(n);
                }
                Event::Empty(e) => {
                    let n = Node {
                        name: e.name().as_ref().to_string(),
                        ..Default::default()
                    };
                    stack.last_mut().expect("open element").children.push(n);
                }
                Event::Text(t) => {
                    let text = t.xml10_content();
                    stack.last_mut().expect("open element").text.push_str(&text);
                }
                Event::End(_) => {
                    let n = stack.pop().expect("open element");
                    stack.last_mut().expect("parent").children.push(n);
                }
                Event::Eof => break,
                _ => {}
            }
        }
        stack
            .pop()
            .expect("document")
            .children
            .into_iter()
            .next()
            .expect("root element")
    }

    /// Direct children with this name.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The first descendant along a `/`-separated path of direct children.
    pub fn at(&self, path: &str) -> Option<&Node> {
        let mut cur = self;
        for part in path.split('/') {
            cur = cur.children.iter().find(|c| c.name == part)?;
        }
        Some(cur)
    }

    /// The trimmed text at a path.
    pub fn text_at(&self, path: &str) -> Option<String> {
        self.at(path).map(|n| n.text.trim().to_string())
    }
}
