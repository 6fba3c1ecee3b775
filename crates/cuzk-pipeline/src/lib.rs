//! The proving engine.
#![forbid(unsafe_code)]
