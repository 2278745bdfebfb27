//! Connections that a handler can cut: the "dropped after the document was accepted" fault (D19).
//!
//! The listener wraps every accepted TCP stream with a kill switch and hands the switch to the
//! handlers as connect info. A handler that flips it makes every later read and write of that
//! connection fail, so hyper gives up on the connection before a single byte of the answer is
//! written and closes the socket: the client sees the connection end without a response.

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// A TCP listener whose connections carry a kill switch.
pub(crate) struct KillableListener {
    inner: TcpListener,
}

impl KillableListener {
    pub(crate) fn new(inner: TcpListener) -> Self {
        KillableListener { inner }
    }
}

/// The connect info of one connection: the switch that cuts it.
#[derive(Debug, Clone)]
pub(crate) struct Connection {
    killed: Arc<AtomicBool>,
}

impl Connection {
    /// Cut the connection: nothing more is read from or written to it.
    pub(crate) fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
    }
}

impl Listener for KillableListener {
    type Io = KillableStream;
    type Addr = Connection;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, _peer)) => {
                    let _ = stream.set_nodelay(true);
                    let killed = Arc::new(AtomicBool::new(false));
                    let conn = Connection { killed: killed.clone() };
                    return (KillableStream { inner: stream, killed }, conn);
                }
                // Per-connection errors (the peer went away before accept) are not ours to report;
                // anything else (out of file descriptors) gets a short pause before the next try.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted
                            | io::ErrorKind::ConnectionReset
                            | io::ErrorKind::ConnectionRefused
                    ) => {}
                Err(e) => {
                    tracing::error!("sandbox: accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()?;
        Ok(Connection {
            killed: Arc::new(AtomicBool::new(false)),
        })
    }
}

impl Connected<IncomingStream<'_, KillableListener>> for Connection {
    fn connect_info(stream: IncomingStream<'_, KillableListener>) -> Self {
        stream.remote_addr().clone()
    }
}

/// A TCP stream that fails every operation once its switch is flipped.
pub(crate) struct KillableStream {
    inner: TcpStream,
    killed: Arc<AtomicBool>,
}

impl KillableStream {
    fn check(&self) -> Result<(), io::Error> {
        if self.killed.load(Ordering::SeqCst) {
            Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "connection dropped by the sandbox (drop fault)",
            ))
        } else {
            Ok(())
        }
    }
}

impl AsyncRead for KillableStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        self.check()?;
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for KillableStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.check()?;
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.check()?;
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.check()?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
