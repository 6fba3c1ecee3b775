use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use ff::PrimeField;

use crate::sha256_native::Sha256;
use crate::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};

/// What a full path names.
#[derive(Clone, Copy, Debug)]
enum Named {
    Var(Variable),
    Constraint,
    Namespace,
}

/// One recorded constraint `a · b = c` and its full path.
#[derive(Clone, Debug)]
struct Recorded<S: PrimeField> {
    a: LinearCombination<S>,
    b: LinearCombination<S>,
    c: LinearCombination<S>,
    path: String,
}

/// A constraint system that keeps everything a test wants to look at: names
/// (as `/`-joined namespace paths), witness values and every linear
/// combination.
///
/// It is slow and memory hungry by design; gadget tests use it to pin
/// constraint counts and [`hash`](Self::hash)es, to tamper with values and to
/// find which constraint a wrong witness breaks. Naming mistakes (a path used
/// twice, a `/` inside a name) do not panic: they are collected in
/// [`naming_errors`](Self::naming_errors) so a test can assert there are none.
#[derive(Clone, Debug)]
pub struct TestConstraintSystem<S: PrimeField> {
    named: HashMap<String, Named>,
    namespace: Vec<String>,
    constraints: Vec<Recorded<S>>,
    inputs: Vec<(S, String)>,
    aux: Vec<(S, String)>,
    naming_errors: Vec<String>,
}

impl<S: PrimeField> Default for TestConstraintSystem<S> {
    fn default() -> Self {
        let mut named = HashMap::new();
        named.insert("ONE".to_string(), Named::Var(Self::one()));
        TestConstraintSystem {
            named,
            namespace: Vec::new(),
            constraints: Vec::new(),
            inputs: vec![(S::ONE, "ONE".to_string())],
            aux: Vec::new(),
            naming_errors: Vec::new(),
        }
    }
}

impl<S: PrimeField> TestConstraintSystem<S> {
    /// A system holding only the constant-one input, named `ONE`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Synthesizes `circuit` into a fresh system.
    pub fn synthesize<C: Circuit<S>>(circuit: C) -> Result<Self, SynthesisError> {
        let mut cs = Self::new();
        circuit.synthesize(&mut cs)?;
        Ok(cs)
    }

    /// Number of constraints (no input-independence constraints are added here).
    pub fn num_constraints(&self) -> usize {
        self.constraints.len()
    }

    /// Number of public inputs, the constant one included.
    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// Number of private variables.
    pub fn num_aux(&self) -> usize {
        self.aux.len()
    }

    /// Input values, the constant one first.
    pub fn scalar_inputs(&self) -> Vec<S> {
        self.inputs.iter().map(|(v, _)| *v).collect()
    }

    /// Private values in allocation order.
    pub fn scalar_aux(&self) -> Vec<S> {
        self.aux.iter().map(|(v, _)| *v).collect()
    }

    /// Paths that were named twice, and names that contained a `/`.
    pub fn naming_errors(&self) -> &[String] {
        &self.naming_errors
    }

    /// The full path of the first constraint the witness violates.
    pub fn which_is_unsatisfied(&self) -> Option<String> {
        let inputs = self.scalar_inputs();
        let aux = self.scalar_aux();
        self.constraints
            .iter()
            .find(|k| k.a.eval(&inputs, &aux) * k.b.eval(&inputs, &aux) != k.c.eval(&inputs, &aux))
            .map(|k| k.path.clone())
    }

    /// True when the witness satisfies every constraint.
    pub fn is_satisfied(&self) -> bool {
        self.which_is_unsatisfied().is_none()
    }

    /// True when the inputs after the constant one are exactly `expected`.
    pub fn verify(&self, expected: &[S]) -> bool {
        self.inputs.len() == expected.len() + 1
            && self.inputs[1..].iter().zip(expected).all(|((v, _), e)| v == e)
    }

    /// The value of the variable at `path`, if one is there.
    pub fn get(&self, path: &str) -> Option<S> {
        match self.named.get(path)? {
            Named::Var(Variable(Index::Input(i))) => Some(self.inputs[*i].0),
            Named::Var(Variable(Index::Aux(i))) => Some(self.aux[*i].0),
            Named::Constraint | Named::Namespace => None,
        }
    }

    /// The path `var` was allocated at.
    pub fn path(&self, var: Variable) -> Option<&str> {
        let (_, path) = match var.0 {
            Index::Input(i) => self.inputs.get(i)?,
            Index::Aux(i) => self.aux.get(i)?,
        };
        Some(path)
    }

    /// Overwrites the variable at `path` and returns its old value; `None`
    /// (and no change) when no variable is there.
    pub fn set(&mut self, path: &str, value: S) -> Option<S> {
        let slot = match self.named.get(path)? {
            Named::Var(Variable(Index::Input(i))) => &mut self.inputs[*i].0,
            Named::Var(Variable(Index::Aux(i))) => &mut self.aux[*i].0,
            Named::Constraint | Named::Namespace => return None,
        };
        Some(std::mem::replace(slot, value))
    }

    /// A SHA-256 (hex) of the shape: the numbers of inputs, aux variables and
    /// constraints, then each constraint's A, B and C with like terms merged,
    /// zero terms dropped and variables sorted, so the hash depends on what
    /// the constraints mean and not on how a gadget happened to write them.
    /// Names and witness values are not hashed.
    pub fn hash(&self) -> String {
        let mut h = Sha256::new();
        for n in [self.inputs.len(), self.aux.len(), self.constraints.len()] {
            h.update(&(n as u64).to_be_bytes());
        }
        for k in &self.constraints {
            for lc in [&k.a, &k.b, &k.c] {
                hash_lc(lc, &mut h);
            }
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn path_of(&mut self, name: String) -> String {
        if name.contains('/') {
            self.naming_errors.push(format!("name contains '/': {name}"));
        }
        if self.namespace.is_empty() {
            name
        } else {
            format!("{}/{}", self.namespace.join("/"), name)
        }
    }

    fn name(&mut self, path: String, what: Named) {
        match self.named.entry(path) {
            Entry::Occupied(e) => self.naming_errors.push(format!("path named twice: {}", e.key())),
            Entry::Vacant(e) => {
                e.insert(what);
            }
        }
    }
}

fn hash_lc<S: PrimeField>(lc: &LinearCombination<S>, h: &mut Sha256) {
    let mut merged: BTreeMap<Index, S> = BTreeMap::new();
    for (var, coeff) in lc.iter() {
        *merged.entry(var.0).or_insert(S::ZERO) += coeff;
    }
    merged.retain(|_, c| !bool::from(c.is_zero()));
    h.update(&(merged.len() as u64).to_be_bytes());
    for (index, coeff) in merged {
        let (tag, i) = match index {
            Index::Input(i) => (b'I', i),
            Index::Aux(i) => (b'A', i),
        };
        h.update(&[tag]);
        h.update(&(i as u64).to_be_bytes());
        h.update(coeff.to_repr().as_ref());
    }
}

impl<S: PrimeField> ConstraintSystem<S> for TestConstraintSystem<S> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let path = self.path_of(annotation().into());
        let var = Variable(Index::Aux(self.aux.len()));
        self.aux.push((f()?, path.clone()));
        self.name(path, Named::Var(var));
        Ok(var)
    }

    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<S, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let path = self.path_of(annotation().into());
        let var = Variable(Index::Input(self.inputs.len()));
        self.inputs.push((f()?, path.clone()));
        self.name(path, Named::Var(var));
        Ok(var)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, annotation: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LB: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
        LC: FnOnce(LinearCombination<S>) -> LinearCombination<S>,
    {
        let path = self.path_of(annotation().into());
        self.name(path.clone(), Named::Constraint);
        let (a, b, c) = (
            a(LinearCombination::zero()),
            b(LinearCombination::zero()),
            c(LinearCombination::zero()),
        );
        self.constraints.push(Recorded { a, b, c, path });
    }

    fn push_namespace<NR, N>(&mut self, name_fn: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        let name = name_fn().into();
        let path = self.path_of(name.clone());
        self.name(path, Named::Namespace);
        self.namespace.push(name);
    }

    fn pop_namespace(&mut self) {
        self.namespace.pop();
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::Scalar;

    fn s(v: u64) -> Scalar {
        Scalar::from(v)
    }

    #[test]
    fn names_values_and_unsatisfied_constraints() {
        let mut cs = TestConstraintSystem::<Scalar>::new();
        let a = cs.namespace(|| "a").alloc(|| "var", || Ok(s(10))).unwrap();
        let b = cs.namespace(|| "b").alloc(|| "var", || Ok(s(4))).unwrap();
        let c = cs.alloc(|| "product", || Ok(s(40))).unwrap();
        {
            let mut ns = cs.namespace(|| "outer");
            let mut ns = ns.namespace(|| "inner");
            ns.enforce(|| "mult", |lc| lc + a, |lc| lc + b, |lc| lc + c);
        }
        assert!(cs.is_satisfied());
        assert_eq!((cs.num_constraints(), cs.num_inputs(), cs.num_aux()), (1, 1, 3));
        assert_eq!(cs.get("a/var"), Some(s(10)));
        assert_eq!(cs.path(b), Some("b/var"));
        assert_eq!(cs.get("outer/inner/mult"), None);
        assert_eq!(cs.get("missing"), None);

        assert_eq!(cs.set("a/var", s(11)), Some(s(10)));
        assert_eq!(cs.which_is_unsatisfied().as_deref(), Some("outer/inner/mult"));
        cs.set("a/var", s(10));
        assert!(cs.is_satisfied());
        assert_eq!(cs.set("outer", s(1)), None);
        assert!(cs.naming_errors().is_empty());
    }

    #[test]
    fn naming_mistakes_are_reported_not_panicked() {
        let mut cs = TestConstraintSystem::<Scalar>::new();
        cs.alloc(|| "x", || Ok(s(1))).unwrap();
        cs.alloc(|| "x", || Ok(s(2))).unwrap();
        cs.alloc(|| "a/b", || Ok(s(3))).unwrap();
        assert_eq!(cs.naming_errors(), ["path named twice: x", "name contains '/': a/b"]);
    }

    #[test]
    fn hash_ignores_term_order_and_merging_but_not_coefficients() {
        let build = |coeffs: &[(usize, u64)]| {
            let mut cs = TestConstraintSystem::<Scalar>::new();
            let x = cs.alloc(|| "x", || Ok(s(0))).unwrap();
            let y = cs.alloc(|| "y", || Ok(s(0))).unwrap();
            let vars = [x, y, TestConstraintSystem::<Scalar>::one()];
            let terms: Vec<(Variable, Scalar)> =
                coeffs.iter().map(|&(v, c)| (vars[v], s(c))).collect();
            cs.enforce(
                || "k",
                |mut lc| {
                    for (v, c) in terms {
                        lc.push(v, c);
                    }
                    lc
                },
                |lc| lc + x,
                |lc| lc,
            );
            cs.hash()
        };
        let base = build(&[(0, 3), (1, 1)]);
        assert_eq!(base, build(&[(1, 1), (0, 1), (0, 2)]));
        assert_eq!(base, build(&[(0, 3), (2, 0), (1, 1)]));
        assert_ne!(base, build(&[(0, 3), (1, 2)]));
        assert_ne!(base, build(&[(0, 3), (1, 1), (2, 1)]));
        assert_eq!(base.len(), 64);
    }
}
