use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};

use crate::{Device, GpuError};
use blstrs::Scalar;
use cuzk_ffi::cast::{as_limbs, as_limbs_mut};
use cuzk_ffi::{ffi, MappedR1cs, UniquePtr};
use cuzk_synth::recorded::{CoeffIndexSlice, Csr};
use cuzk_synth::{DensityTracker, RecordedShape, Witness};
use ff::Field;

/// A recorded shape (A, B, C and their coefficient table) resident on one
/// device, uploaded once and read by every evaluation and proof of that
/// shape there, so a proof sends only its witness.
///
/// It keeps the shape's counts and densities on the host too: the split of
/// the witness into zeros, ones and tail runs on the CPU and needs them.
///
/// A mapped shape ([`DeviceShape::map`]) leaves the matrices in the
/// recording's host memory, which the device reads across the bus at each
/// evaluation: ~44 bytes per constraint of device memory kept free (5.9 GB
/// at 2^27) for that traffic, where a card cannot hold them.
pub struct DeviceShape {
    raw: Placed,
    device_id: i32,
    rows: usize,
    num_inputs: usize,
    num_aux: usize,
    densities: [DensityTracker; 3],
}

/// Where a shape's matrices are.
enum Placed {
    Resident(UniquePtr<ffi::DeviceR1cs>),
    /// With the recording's address, counted in [`MAPPED`] until dropped.
    Mapped(MappedR1cs, usize),
}

/// How many mapped shapes hold each recording (by address): the strong
/// references that are theirs, not their owners', so that a cache can
/// tell when only mapped shapes keep a recording alive
/// ([`DeviceShape::only_mapped`]).
static MAPPED: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

fn mapped_count() -> std::sync::MutexGuard<'static, BTreeMap<usize, usize>> {
    MAPPED.lock().unwrap_or_else(|p| p.into_inner())
}

impl Drop for DeviceShape {
    fn drop(&mut self) {
        if let Placed::Mapped(_, key) = &self.raw {
            let mut counts = mapped_count();
            if let Some(n) = counts.get_mut(key) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(key);
                }
            }
        }
    }
}

impl std::fmt::Debug for DeviceShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceShape")
            .field("device", &self.device_id)
            .field("rows", &self.rows)
            .field("inputs", &self.num_inputs)
            .field("aux", &self.num_aux)
            .finish_non_exhaustive()
    }
}

/// The bridge's borrowed form of one matrix, indices at their recorded width.
pub(crate) fn matrix(m: &Csr) -> ffi::R1csMatrix<'_> {
    let (narrow, wide): (&[u16], &[u32]) = match m.coeff_indices() {
        CoeffIndexSlice::Narrow(v) => (v, &[]),
        CoeffIndexSlice::Wide(v) => (&[], v),
    };
    ffi::R1csMatrix { row_ptr: m.row_ptr(), cols: m.cols(), narrow, wide }
}

/// Checks a witness's lengths against a shape's before any FFI call.
pub(crate) fn check_witness(num_inputs: usize, num_aux: usize, w: &Witness<Scalar>) -> Result<(), GpuError> {
    if w.inputs.len() != num_inputs || w.aux.len() != num_aux {
        return Err(GpuError::InvalidInput(format!(
            "the shape has {num_inputs} inputs and {num_aux} aux variables, the witness {} and {}",
            w.inputs.len(),
            w.aux.len()
        )));
    }
    Ok(())
}

impl DeviceShape {
    /// Uploads `shape` to `device`. The C++ side checks every index against
    /// the table and the column space first (a malformed shape would read
    /// out of bounds on the device).
    pub fn upload(device: &Device, shape: &RecordedShape<Scalar>) -> Result<DeviceShape, GpuError> {
        let raw = ffi::r1cs_upload(
            device.id(),
            &matrix(shape.a()),
            &matrix(shape.b()),
            &matrix(shape.c()),
            as_limbs(shape.coefficients()),
            shape.num_inputs() as u64,
            shape.num_aux() as u64,
        )?;
        Ok(DeviceShape {
            raw: Placed::Resident(raw),
            device_id: device.id(),
            rows: shape.num_constraints(),
            num_inputs: shape.num_inputs(),
            num_aux: shape.num_aux(),
            densities: shape.densities().clone(),
        })
    }

    /// `shape` on `device` with its matrices left in the recording's host
    /// memory (pinned and mapped in place, no copy), the recording kept
    /// alive as long as this; the same checks as [`DeviceShape::upload`].
    pub fn map(device: &Device, shape: Arc<RecordedShape<Scalar>>) -> Result<DeviceShape, GpuError> {
        let (rows, num_inputs, num_aux) = (shape.num_constraints(), shape.num_inputs(), shape.num_aux());
        let densities = shape.densities().clone();
        let key = Arc::as_ptr(&shape) as usize;
        let mapped = MappedR1cs::new(
            device.id(),
            shape,
            |s| ([matrix(s.a()), matrix(s.b()), matrix(s.c())], as_limbs(s.coefficients())),
            num_inputs as u64,
            num_aux as u64,
        )?;
        *mapped_count().entry(key).or_insert(0) += 1;
        Ok(DeviceShape { raw: Placed::Mapped(mapped, key), device_id: device.id(), rows, num_inputs, num_aux, densities })
    }

    /// Whether the matrices stay in host memory ([`DeviceShape::map`]).
    pub fn is_mapped(&self) -> bool {
        matches!(self.raw, Placed::Mapped(..))
    }

    /// Whether `recording` is alive only through mapped shapes (on any
    /// device): its owner has let it go, so they should be too.
    pub fn only_mapped(recording: &Weak<RecordedShape<Scalar>>) -> bool {
        let held = mapped_count().get(&(recording.as_ptr() as usize)).copied().unwrap_or(0);
        recording.strong_count() <= held
    }

    /// Bytes of the matrices the device reads from host memory at each
    /// evaluation: 0 when uploaded; when mapped, all but arrays small
    /// enough to share a page with another (copied instead).
    pub fn host_bytes(&self) -> u64 {
        ffi::r1cs_host_bytes(self.raw())
    }

    /// a = A·w, b = B·w, c = C·w computed on the device, one scalar per
    /// constraint each: equal to what `RecordedShape::evaluate` puts in its
    /// assignment. A witness that fails a constraint is
    /// `UnsatisfiedConstraint` naming the row the CPU names (the lowest).
    pub fn evaluate(&self, w: &Witness<Scalar>) -> Result<[Vec<Scalar>; 3], GpuError> {
        check_witness(self.num_inputs, self.num_aux, w)?;
        let mut abc = [(); 3].map(|_| vec![Scalar::ZERO; self.rows]);
        let [a, b, c] = &mut abc;
        ffi::r1cs_evaluate(
            self.raw(),
            as_limbs(&w.inputs),
            as_limbs(&w.aux),
            as_limbs_mut(a),
            as_limbs_mut(b),
            as_limbs_mut(c),
        )?;
        Ok(abc)
    }

    /// The device the shape lives on.
    pub fn device_id(&self) -> i32 {
        self.device_id
    }

    /// Constraints, the input rows included.
    pub fn num_constraints(&self) -> usize {
        self.rows
    }

    /// Public inputs, the constant one included.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Private variables.
    pub fn num_aux(&self) -> usize {
        self.num_aux
    }

    /// Aux variables used in A, inputs used in B, aux variables used in B.
    pub fn densities(&self) -> &[DensityTracker; 3] {
        &self.densities
    }

    /// Checks a witness's lengths against the shape.
    pub fn check_witness(&self, w: &Witness<Scalar>) -> Result<(), GpuError> {
        check_witness(self.num_inputs, self.num_aux, w)
    }

    pub(crate) fn raw(&self) -> &ffi::DeviceR1cs {
        match &self.raw {
            Placed::Resident(raw) => raw,
            Placed::Mapped(mapped, _) => mapped.shape(),
        }
    }
}
