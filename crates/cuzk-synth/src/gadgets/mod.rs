//! Circuit building blocks with bellperson 0.27's exact constraint layout, so
//! a circuit built from them is the same R1CS bellperson would prove.

/// Allocated bits and the two-input gates over them.
pub mod bit;
/// Constant, allocated or negated bits and the logic over them.
pub mod boolean;
/// Packing several small equalities into one constraint.
pub mod multieq;
/// Packing bits into public inputs.
pub mod multipack;
/// Allocated field elements.
pub mod num;
/// The SHA-256 compression function and hash.
pub mod sha256;
/// 32-bit words: rotations, XOR, SHA-256's `ch`/`maj`, additions.
pub mod uint32;

pub use bit::AllocatedBit;
pub use boolean::Boolean;
pub use multieq::MultiEq;
pub use num::AllocatedNum;
pub use uint32::UInt32;
