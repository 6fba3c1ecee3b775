//! The partitions between submission and proof: waiting for synthesis
//! ([`Pending`], a priority heap), synthesized and waiting for a device
//! ([`Ready`]), and taken together for one backend call ([`Batch`]).

use std::cmp::{Ordering, Reverse};
use std::sync::Arc;

use blstrs::Scalar;
use cuzk_synth::{ProvingAssignment, RecordedShape, Witness};

use super::devices::Fault;
use crate::job::{JobId, Priority};
use crate::synthesis::{Synthesize, Synthesized};

/// A partition waiting for synthesis; the heap pops the highest priority,
/// then the oldest job, then the lowest partition index.
pub(super) struct Pending {
    pub(super) priority: Priority,
    pub(super) job: JobId,
    pub(super) part: usize,
    pub(super) synthesize: Synthesize,
    /// The verifier's public inputs, checked once synthesized (`Job::partition_expecting`).
    pub(super) expect: Option<Vec<Scalar>>,
}

impl Pending {
    fn key(&self) -> (Priority, Reverse<JobId>, Reverse<usize>) {
        (self.priority, Reverse(self.job), Reverse(self.part))
    }
}
impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// A synthesized partition and the budget bytes it holds until proved.
pub(super) struct Ready {
    pub(super) priority: Priority,
    pub(super) job: JobId,
    pub(super) part: usize,
    pub(super) assignment: Synthesized,
    pub(super) reserved: u64,
    /// The call that failed it before, when this is its retry.
    pub(super) retry: Option<Retry>,
}

/// A partition's failed call: the partition goes to another device while
/// one is in service, and gets no further retry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Retry {
    /// The device whose call failed.
    pub(super) device: usize,
    /// How that failure was judged.
    pub(super) fault: Fault,
}

/// The partitions of one backend call, all of one kind.
pub(super) enum Batch {
    /// Assignments with a, b, c evaluated.
    Assignments(Vec<ProvingAssignment<Scalar>>),
    /// Witnesses of one recorded shape.
    Witnesses(Arc<RecordedShape<Scalar>>, Vec<Witness<Scalar>>),
}

impl Batch {
    /// Adds `s` when it is of the batch's kind and the batch has fewer than
    /// `max` partitions; else gives it back.
    fn join(batch: &mut Option<Batch>, s: Synthesized, max: usize) -> Option<Synthesized> {
        match (batch.as_mut(), s) {
            (None, Synthesized::Assignment(pa)) => *batch = Some(Batch::Assignments(vec![*pa])),
            (None, Synthesized::Witness(w, shape)) => *batch = Some(Batch::Witnesses(shape, vec![w])),
            (Some(Batch::Assignments(v)), Synthesized::Assignment(pa)) if v.len() < max => v.push(*pa),
            (Some(Batch::Witnesses(shape, v)), Synthesized::Witness(w, other))
                if v.len() < max && Arc::ptr_eq(shape, &other) =>
            {
                v.push(w)
            }
            (_, s) => return Some(s),
        }
        None
    }

    /// The partitions again, in batch order (for a retry).
    pub(super) fn into_parts(self) -> Vec<Synthesized> {
        match self {
            Batch::Assignments(v) => v.into_iter().map(|pa| Synthesized::Assignment(Box::new(pa))).collect(),
            Batch::Witnesses(shape, v) => v.into_iter().map(|w| Synthesized::Witness(w, shape.clone())).collect(),
        }
    }

    /// The public inputs of every partition, the constant one left out.
    pub(super) fn public_inputs(&self) -> Vec<&[Scalar]> {
        match self {
            Batch::Assignments(v) => v.iter().map(|pa| &pa.input_assignment[1..]).collect(),
            Batch::Witnesses(_, v) => v.iter().map(|w| &w.inputs[1..]).collect(),
        }
    }
}

/// What a prove worker takes from the ready partitions; per partition, in
/// batch order, its index, budget bytes and earlier failed call.
pub(super) struct Taken {
    pub(super) job: JobId,
    pub(super) parts: Vec<usize>,
    pub(super) reserved: Vec<u64>,
    pub(super) retries: Vec<Option<Retry>>,
    pub(super) batch: Batch,
}

/// Takes ready partitions of the most urgent job (highest priority, then
/// oldest), lowest partition first: at most `max`, all of the lowest one's
/// kind (assignments, or witnesses of one shape), for one backend call on
/// `device`. While `others_in_service`, partitions whose call failed on
/// `device` are left for the other devices.
pub(super) fn take_batch(ready: &mut Vec<Ready>, max: usize, device: usize, others_in_service: bool) -> Option<Taken> {
    let usable = |r: &Ready| !(others_in_service && r.retry.is_some_and(|f| f.device == device));
    let best = ready.iter().filter(|r| usable(r)).map(|r| (r.priority, Reverse(r.job))).max()?;
    let job = best.1 .0;
    let mut mine: Vec<Ready> = Vec::new();
    let mut i = 0;
    while i < ready.len() {
        if ready[i].job == job && usable(&ready[i]) {
            mine.push(ready.swap_remove(i));
        } else {
            i += 1;
        }
    }
    mine.sort_by_key(|r| r.part);
    let (mut batch, mut parts, mut reserved, mut retries) = (None, Vec::new(), Vec::new(), Vec::new());
    for Ready { priority, job, part, assignment, reserved: bytes, retry } in mine {
        match Batch::join(&mut batch, assignment, max) {
            None => {
                parts.push(part);
                reserved.push(bytes);
                retries.push(retry);
            }
            Some(assignment) => ready.push(Ready { priority, job, part, assignment, reserved: bytes, retry }),
        }
    }
    batch.map(|batch| Taken { job, parts, reserved, retries, batch })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::workloads::MulChain;

    fn ready(part: usize, assignment: Synthesized) -> Ready {
        Ready { priority: Priority::Normal, job: 1, part, assignment, reserved: 10 + part as u64, retry: None }
    }

    fn kind(t: &Taken) -> (Option<*const RecordedShape<Scalar>>, usize) {
        match &t.batch {
            Batch::Assignments(v) => (None, v.len()),
            Batch::Witnesses(shape, v) => (Some(Arc::as_ptr(shape)), v.len()),
        }
    }

    #[test]
    fn batches_hold_one_kind_lowest_partition_first_and_at_most_max() {
        let shape = |seed| Arc::new(RecordedShape::record(MulChain::<Scalar>::new(2, seed)).unwrap().0);
        let (s, t) = (shape(1), shape(2));
        let pa = || Synthesized::Assignment(Box::new(ProvingAssignment::new()));
        let w = |shape: &Arc<RecordedShape<Scalar>>| Synthesized::Witness(Witness::default(), shape.clone());
        let mut queue =
            vec![ready(3, w(&t)), ready(1, w(&s)), ready(0, pa()), ready(4, pa()), ready(2, w(&s)), ready(5, w(&s))];
        let mut take = |max| take_batch(&mut queue, max, 0, false).unwrap();
        let first = take(8);
        assert_eq!((first.parts.clone(), first.reserved.clone(), kind(&first)), (vec![0, 4], vec![10, 14], (None, 2)));
        let second = take(2);
        assert_eq!((second.parts.clone(), kind(&second)), (vec![1, 2], (Some(Arc::as_ptr(&s)), 2)));
        let third = take(8);
        assert_eq!((third.parts.clone(), kind(&third)), (vec![3], (Some(Arc::as_ptr(&t)), 1)));
        let fourth = take(8);
        assert_eq!((fourth.parts.clone(), kind(&fourth)), (vec![5], (Some(Arc::as_ptr(&s)), 1)));
        assert!(take_batch(&mut queue, 8, 0, false).is_none());
    }

    #[test]
    fn a_retried_partition_goes_to_another_device_while_one_is_in_service() {
        let pa = || Synthesized::Assignment(Box::new(ProvingAssignment::new()));
        let failed_on_0 = Some(Retry { device: 0, fault: Fault::Device });
        let mut queue = vec![Ready { retry: failed_on_0, ..ready(0, pa()) }];
        assert!(take_batch(&mut queue, 8, 0, true).is_none(), "device 0 leaves it to the others");
        let taken = take_batch(&mut queue, 8, 1, true).expect("device 1 takes it");
        assert_eq!((taken.parts, taken.retries), (vec![0], vec![failed_on_0]));
        let mut alone = vec![Ready { retry: failed_on_0, ..ready(0, pa()) }];
        assert!(take_batch(&mut alone, 8, 0, false).is_some(), "with no other device in service it retries where it failed");
    }
}
