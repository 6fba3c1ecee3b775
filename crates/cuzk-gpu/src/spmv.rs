use crate::{Device, GpuError};
use blstrs::Scalar;
use cuzk_ffi::cast::{as_limbs, as_limbs_mut};
use cuzk_ffi::{ffi, UniquePtr};
use cuzk_synth::recorded::{CoeffIndexSlice, Csr};
use cuzk_synth::{DensityTracker, RecordedShape, Witness};
use ff::Field;

/// A recorded shape (A, B, C and their coefficient table) resident on one
/// device, uploaded once and read by every evaluation and proof of that
/// shape there, so a proof sends only its witness.
///
/// It keeps the shape's counts and densities on the host too: the split of
/// the witness into zeros, ones and tail runs on the CPU and needs them.
pub struct DeviceShape {
    raw: UniquePtr<ffi::DeviceR1cs>,
    device_id: i32,
    rows: usize,
    num_inputs: usize,
    num_aux: usize,
    densities: [DensityTracker; 3],
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
            raw,
            device_id: device.id(),
            rows: shape.num_constraints(),
            num_inputs: shape.num_inputs(),
            num_aux: shape.num_aux(),
            densities: shape.densities().clone(),
        })
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
            &self.raw,
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
        &self.raw
    }
}
