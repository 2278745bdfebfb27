//! The binary's global allocator: mimalloc, asked for aligned memory only when the alignment
//! needs it.
//!
//! The `mimalloc` crate's allocator passes every request to `mi_malloc_aligned`, alignment 1
//! and 8 included. In mimalloc 3 that call takes the plain path only while the size class has a
//! free block at hand; otherwise, for any block size that is not a power of two (24, 40, 48,
//! 112 … bytes: most strings and vectors), it over-allocates by `align - 1` bytes into the next
//! size class (BENCHMARKS.md, "the allocator's aligned path"). Every mimalloc block is at least
//! a word long and starts on a word boundary, so a request aligned to at most a word is served
//! by plain `mi_malloc`; larger alignments keep the aligned calls.
//!
//! This is the crate's only `unsafe` code: the four entry points of `GlobalAlloc`, each a
//! direct call into mimalloc.

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// The alignment every mimalloc block has: a word (blocks are whole words, pages word-aligned).
pub const WORD: usize = std::mem::size_of::<usize>();

/// mimalloc, with plain (unaligned) calls for word-aligned requests. Use as
/// `#[global_allocator] static A: invoicedrop::alloc::Allocator = invoicedrop::alloc::Allocator;`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Allocator;

/// Whether a request of this alignment is met by any mimalloc block.
#[inline]
pub const fn plain(align: usize) -> bool {
    align <= WORD
}

// SAFETY: each method forwards to the mimalloc function of the same contract. Plain calls are
// used only for alignments of at most a word, which every mimalloc block satisfies; the others
// go to the `_aligned` functions with the layout's alignment. `dealloc` may free both kinds
// with `mi_free`, as mimalloc documents.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc accepts any size; a null return is passed on as allocation failure.
        unsafe {
            if plain(layout.align()) {
                mi::mi_malloc(layout.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`, zeroed by mimalloc.
        unsafe {
            if plain(layout.align()) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the caller's contract), so from mimalloc.
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the new block keeps the
        // alignment by the same rule as `alloc`.
        unsafe {
            if plain(layout.align()) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Allocate, fill, grow, shrink and free through the allocator, checking alignment and
    /// contents at every step.
    fn round_trip(size: usize, align: usize, grown: usize, zeroed: bool) {
        let a = Allocator;
        let layout = Layout::from_size_align(size, align).unwrap();
        // SAFETY: non-zero sizes (the strategy's), freed with the layout they were made with.
        unsafe {
            let p = if zeroed {
                a.alloc_zeroed(layout)
            } else {
                a.alloc(layout)
            };
            assert!(!p.is_null());
            assert_eq!(p as usize % align, 0, "size {size}, align {align}");
            if zeroed {
                assert!(std::slice::from_raw_parts(p, size).iter().all(|b| *b == 0));
            }
            for i in 0..size {
                *p.add(i) = (i % 251) as u8;
            }
            let q = a.realloc(p, layout, grown);
            assert!(!q.is_null());
            assert_eq!(q as usize % align, 0, "realloc {size} -> {grown}, align {align}");
            for i in 0..size.min(grown) {
                assert_eq!(*q.add(i), (i % 251) as u8, "byte {i} after realloc");
            }
            a.dealloc(q, Layout::from_size_align(grown, align).unwrap());
        }
    }

    #[test]
    fn word_aligned_requests_take_the_plain_calls_and_larger_ones_do_not() {
        assert!(plain(1) && plain(2) && plain(4) && plain(8));
        assert!(!plain(16) && !plain(64) && !plain(4096));
    }

    #[test]
    fn the_sizes_strings_and_vectors_use_are_aligned_and_keep_their_bytes() {
        for size in [
            1,
            3,
            7,
            8,
            9,
            15,
            16,
            17,
            24,
            40,
            48,
            100,
            112,
            1000,
            1025,
            70_000,
            5 << 20,
        ] {
            for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                round_trip(size, align, size * 2 + 1, false);
                round_trip(size, align, size.div_ceil(3), true);
            }
        }
    }

    proptest! {
        #[test]
        fn any_layout_is_aligned_and_keeps_its_bytes(
            size in 1usize..20_000,
            align_log in 0u32..13,
            grown in 1usize..40_000,
            zeroed: bool,
        ) {
            round_trip(size, 1 << align_log, grown, zeroed);
        }
    }
}
