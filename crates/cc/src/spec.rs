//! Algorithm spec strings: `name[:key=value,key=value...]`.
//!
//! Every algorithm registers an [`AlgorithmInfo`]: its name, a one-line
//! summary, its parameters with defaults and valid ranges, and a constructor.
//! [`AlgorithmSpec::parse`] checks a spec against that declaration, so an
//! unknown name, an unknown parameter or an out-of-range value is an error
//! that lists what exists, and a constructor only ever sees valid values.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};
use std::time::Duration;

use crate::controller::{CongestionControl, ControllerConfig};

/// The type and valid range of a parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A real number in `[min, max]`.
    Float { min: f64, max: f64 },
    /// An integer in `[min, max]`.
    Int { min: u64, max: u64 },
    /// `true` or `false`.
    Bool,
    /// One of named choices. The index of a name (`0`, `1`, ...) is accepted
    /// too, for spec strings written before the choice had names.
    Choice { names: &'static [&'static str] },
}

impl fmt::Display for ParamKind {
    /// How `bbrlab list` describes the kind: `number in [0.1, 0.95]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamKind::Float { min, max } => write!(f, "number in [{min}, {max}]"),
            ParamKind::Int { min, max } => write!(f, "integer in [{min}, {max}]"),
            ParamKind::Bool => f.write_str("true|false"),
            ParamKind::Choice { names } => f.write_str(&names.join("|")),
        }
    }
}

/// One declared parameter of an algorithm.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The key in the spec string.
    pub name: &'static str,
    /// Type and range.
    pub kind: ParamKind,
    /// The default.
    pub default: Value,
    /// What the parameter does.
    pub doc: &'static str,
}

impl ParamSpec {
    /// The default as it would be written in a spec string.
    pub fn default_text(&self) -> String {
        self.default.text(&self.kind)
    }
}

/// A controller constructor.
pub type Constructor = fn(&AlgorithmSpec, &ControllerConfig) -> Box<dyn CongestionControl>;

/// An algorithm's entry in the registry.
///
/// Built with [`AlgorithmInfo::new`], then [`AlgorithmInfo::param_table`]
/// for the parameters it declares itself and [`AlgorithmInfo::inherit`] for
/// those it takes from a parent, by name; registered with [`register`].
#[derive(Clone)]
pub struct AlgorithmInfo {
    /// The spec name (e.g. `"bbr"`).
    pub name: &'static str,
    /// The name shown in tables and figures (e.g. `"BBRv1"`).
    pub display_name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// The algorithm whose parameters it inherits, if any.
    pub parent: Option<&'static str>,
    /// Its parameters, in the order `bbrlab list` shows them.
    pub params: Vec<ParamSpec>,
    /// Builds a controller from a validated spec.
    pub build: Constructor,
    /// Named variants worth comparing beside the defaults (e.g. oBBR as
    /// its authors' code runs it): see [`Variant`]. Comparisons over every
    /// controller (`bbrlab league`, `bbrlab advise`) run each.
    pub variants: Vec<Variant>,
}

/// A named setting of an algorithm's parameters that stands for a version
/// of it in its own right (the authors' code beside the paper), declared
/// with its algorithm so that comparisons over the registry include it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The parameters, as after the `:` of a spec string (`"code=true"`).
    pub params: &'static str,
    /// What it is, in a few words (`"the authors' nginx-quic code"`).
    pub doc: &'static str,
}

impl fmt::Debug for AlgorithmInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlgorithmInfo")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl AlgorithmInfo {
    /// An algorithm without parameters; its display name is its spec name.
    pub fn new(name: &'static str, summary: &'static str, build: Constructor) -> Self {
        AlgorithmInfo {
            name,
            display_name: name,
            summary,
            parent: None,
            params: Vec::new(),
            build,
            variants: Vec::new(),
        }
    }

    /// Declares a variant (builder style): `params` as after the `:` of a
    /// spec string. Checked like any spec when the algorithm is registered.
    pub fn variant(mut self, params: &'static str, doc: &'static str) -> Self {
        self.variants.push(Variant { params, doc });
        self
    }

    /// The spec strings of the algorithm's default and of each variant, in
    /// that order: what a comparison over every controller runs.
    pub fn specs(&self) -> Vec<String> {
        std::iter::once(self.name.to_string())
            .chain(
                self.variants
                    .iter()
                    .map(|v| format!("{}:{}", self.name, v.params)),
            )
            .collect()
    }

    /// Sets the name shown in tables and figures.
    pub fn display_name(mut self, display_name: &'static str) -> Self {
        self.display_name = display_name;
        self
    }

    /// Declares parameters (usually a [`params!`](crate::params) struct's
    /// `params()`). A parameter with the name of one already declared (an
    /// inherited one) replaces it in place: that is how a variant changes
    /// a parent's default, range or doc. Others are appended.
    pub fn param_table(mut self, params: impl IntoIterator<Item = ParamSpec>) -> Self {
        for p in params {
            match self.params.iter_mut().find(|q| q.name == p.name) {
                Some(q) => *q = p,
                None => self.params.push(p),
            }
        }
        self
    }

    /// Inherits every parameter of `parent` not declared yet, in the
    /// parent's order, and records the parent's name.
    pub fn inherit(mut self, parent: &AlgorithmInfo) -> Self {
        self.parent = Some(parent.name);
        for p in &parent.params {
            if !self.params.iter().any(|q| q.name == p.name) {
                self.params.push(*p);
            }
        }
        self
    }

    /// Removes parameters by name (e.g. an inherited one the variant fixes).
    /// Panics on a name that is not declared: a typo would otherwise leave
    /// the parameter in place unseen.
    pub fn without(mut self, names: &[&str]) -> Self {
        for name in names {
            let i = self
                .params
                .iter()
                .position(|p| p.name == *name)
                .unwrap_or_else(|| panic!("{}: no parameter `{name}` to remove", self.name));
            self.params.remove(i);
        }
        self
    }

    /// The declared parameter `name`.
    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// A parameter value after validation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A real number.
    Float(f64),
    /// An integer.
    Int(u64),
    /// A flag.
    Bool(bool),
    /// The index of a named choice.
    Choice(usize),
}

impl Value {
    /// The value as written in a spec string.
    pub fn text(&self, kind: &ParamKind) -> String {
        match (self, kind) {
            (Value::Choice(i), ParamKind::Choice { names }) => names[*i].to_string(),
            (Value::Float(v), _) => v.to_string(),
            (Value::Int(v), _) => v.to_string(),
            (Value::Bool(v), _) => v.to_string(),
            (Value::Choice(i), _) => i.to_string(),
        }
    }
}

/// A Rust type a parameter can have: `f64`, `u64`, `u32`, `usize`, `bool`,
/// [`Duration`] (an integer number of milliseconds) or a [`ParamChoice`] enum.
pub trait ParamValue: Sized {
    /// The kind, given the declared range (`None` for types without one).
    fn kind(range: Option<(f64, f64)>) -> ParamKind;
    /// The value to store.
    fn to_value(&self) -> Value;
    /// Reads a validated value of this type's kind. Panics on another kind
    /// (a declaration reading a key as the wrong type: a programming error).
    fn from_value(value: Value) -> Self;
}

/// The range a [`params!`](crate::params) field declares, if any.
#[doc(hidden)]
pub fn declared_range(range: &[(f64, f64)]) -> Option<(f64, f64)> {
    range.first().copied()
}

fn range_of(range: Option<(f64, f64)>, what: &str) -> (f64, f64) {
    range.unwrap_or_else(|| panic!("a {what} parameter needs a range"))
}

impl ParamValue for f64 {
    fn kind(range: Option<(f64, f64)>) -> ParamKind {
        let (min, max) = range_of(range, "number");
        ParamKind::Float { min, max }
    }
    fn to_value(&self) -> Value {
        Value::Float(*self)
    }
    fn from_value(value: Value) -> Self {
        match value {
            Value::Float(v) => v,
            other => panic!("expected a number, found {other:?}"),
        }
    }
}

macro_rules! int_param_value {
    ($($t:ty),*) => {$(
        impl ParamValue for $t {
            fn kind(range: Option<(f64, f64)>) -> ParamKind {
                let (min, max) = range_of(range, "integer");
                ParamKind::Int { min: min as u64, max: max as u64 }
            }
            fn to_value(&self) -> Value {
                Value::Int(*self as u64)
            }
            fn from_value(value: Value) -> Self {
                match value {
                    Value::Int(v) => <$t>::try_from(v).expect("declared ranges fit the field"),
                    other => panic!("expected an integer, found {other:?}"),
                }
            }
        }
    )*};
}
int_param_value!(u64, u32, usize);

impl ParamValue for bool {
    fn kind(_: Option<(f64, f64)>) -> ParamKind {
        ParamKind::Bool
    }
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_value(value: Value) -> Self {
        match value {
            Value::Bool(v) => v,
            other => panic!("expected a flag, found {other:?}"),
        }
    }
}

impl ParamValue for Duration {
    /// Whole milliseconds.
    fn kind(range: Option<(f64, f64)>) -> ParamKind {
        u64::kind(range)
    }
    fn to_value(&self) -> Value {
        Value::Int(self.as_millis() as u64)
    }
    fn from_value(value: Value) -> Self {
        Duration::from_millis(u64::from_value(value))
    }
}

/// An enum whose variants are a parameter's named choices; implement it
/// with [`param_choice!`](crate::param_choice).
pub trait ParamChoice: Copy + Sized + 'static {
    /// The names, in the order of the legacy integer codes.
    const NAMES: &'static [&'static str];
    /// The variant's position in [`ParamChoice::NAMES`].
    fn index(self) -> usize;
    /// The variant at `index`.
    fn from_index(index: usize) -> Self;
    /// The variant's name.
    fn name(self) -> &'static str {
        Self::NAMES[self.index()]
    }
}

impl<T: ParamChoice> ParamValue for T {
    fn kind(_: Option<(f64, f64)>) -> ParamKind {
        ParamKind::Choice { names: T::NAMES }
    }
    fn to_value(&self) -> Value {
        Value::Choice(self.index())
    }
    fn from_value(value: Value) -> Self {
        match value {
            Value::Choice(i) => T::from_index(i),
            other => panic!("expected a choice, found {other:?}"),
        }
    }
}

/// Implements [`ParamChoice`] for an enum: each variant with its name in
/// spec strings, in the order of their integer codes.
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Shape { Flat, Steep }
/// cc::param_choice!(Shape { Flat = "flat", Steep = "steep" });
/// use cc::spec::ParamChoice;
/// assert_eq!(Shape::from_index(1), Shape::Steep);
/// assert_eq!(Shape::Flat.name(), "flat");
/// ```
#[macro_export]
macro_rules! param_choice {
    ($ty:ident { $($variant:ident = $name:literal),+ $(,)? }) => {
        impl $crate::spec::ParamChoice for $ty {
            const NAMES: &'static [&'static str] = &[$($name),+];
            fn index(self) -> usize {
                let all = [$($ty::$variant),+];
                all.iter().position(|v| *v == self).expect("every variant is listed")
            }
            fn from_index(index: usize) -> Self {
                [$($ty::$variant),+][index]
            }
        }
    };
}

/// Declares a controller's parameters once: the struct, its `Default`, the
/// registry's parameter table (`params()`) and the reading of a validated
/// spec (`from_spec`). Each field is
///
/// `name: Type ["key", min..=max] = default => "doc for bbrlab list"`
///
/// where the range is given for numbers and integers only. `from_spec`
/// takes each key the spec's algorithm declares and the field's default for
/// keys it does not declare, so a variant that drops one of its parent's
/// parameters still reads the parent's struct. A function named after the
/// struct's closing brace (`} then adjust`), `fn(Self, &AlgorithmSpec) ->
/// Self`, finishes `from_spec`: for defaults that depend on other values.
///
/// ```
/// cc::params! {
///     /// My variant's tunables.
///     #[derive(Clone, Copy, Debug, PartialEq)]
///     pub struct MyParams {
///         /// The cap, in BDPs.
///         pub cap: f64 ["cap", 1.0..=4.0] = 2.0 => "inflight cap in BDPs",
///         pub probe: bool ["probe"] = true => "probe for bandwidth",
///     }
/// }
/// assert_eq!(MyParams::default().cap, 2.0);
/// assert_eq!(MyParams::params()[0].name, "cap");
/// ```
#[macro_export]
macro_rules! params {
    (
        $(#[$smeta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $fvis:vis $field:ident : $ty:ty [$key:literal $(, $min:literal ..= $max:literal)?]
                    = $default:expr => $doc:literal
            ),* $(,)?
        }
        $(then $adjust:path)?
    ) => {
        $(#[$smeta])*
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $name {
            /// The registry's parameter table for these fields.
            pub fn params() -> ::std::vec::Vec<$crate::spec::ParamSpec> {
                let d = <$name as ::core::default::Default>::default();
                ::std::vec![$(
                    $crate::spec::ParamSpec {
                        name: $key,
                        kind: <$ty as $crate::spec::ParamValue>::kind(
                            $crate::spec::declared_range(&[$(($min as f64, $max as f64))?]),
                        ),
                        default: $crate::spec::ParamValue::to_value(&d.$field),
                        doc: $doc,
                    }
                ),*]
            }

            /// Reads a validated spec: each declared key, else the default.
            pub fn from_spec(spec: &$crate::spec::AlgorithmSpec) -> Self {
                #[allow(unused_variables)]
                let d = <$name as ::core::default::Default>::default();
                let read = $name { $( $field: spec.get::<$ty>($key).unwrap_or(d.$field), )* };
                $( let read = $adjust(read, spec); )?
                read
            }
        }
    };
}

/// Why a spec string was rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// The name is not a registered algorithm.
    #[error("unknown algorithm `{name}`; known algorithms: {}", known.join(", "))]
    UnknownAlgorithm {
        name: String,
        known: Vec<&'static str>,
    },
    /// The parameter is not declared by the algorithm.
    #[error("`{algorithm}` has no parameter `{param}`; valid parameters: {}", if valid.is_empty() { "none".to_string() } else { valid.join(", ") })]
    UnknownParameter {
        algorithm: &'static str,
        param: String,
        valid: Vec<&'static str>,
    },
    /// The value does not parse or is out of range.
    #[error("`{algorithm}` parameter `{param}` = `{value}`: expected {expected}")]
    BadValue {
        algorithm: &'static str,
        param: String,
        value: String,
        expected: String,
    },
    /// A `key=value` item is malformed.
    #[error("malformed parameter `{item}` in `{spec}`: expected key=value")]
    Malformed { spec: String, item: String },
    /// A parameter is given twice.
    #[error("parameter `{param}` given twice in `{spec}`")]
    Duplicate { spec: String, param: String },
    /// A `:` with no parameters after it, or an empty item between commas.
    #[error(
        "empty parameter list or item in `{spec}`: expected name or name:key=value[,key=value...]"
    )]
    EmptyItem { spec: String },
}

/// A parsed, validated algorithm spec (defaults filled in).
#[derive(Clone, Debug)]
pub struct AlgorithmSpec {
    info: &'static AlgorithmInfo,
    text: String,
    values: BTreeMap<&'static str, Value>,
    given: Vec<&'static str>,
}

impl AlgorithmSpec {
    /// Parses and validates `spec` against the registry.
    pub fn parse(spec: &str) -> Result<AlgorithmSpec, SpecError> {
        let spec = spec.trim();
        let (name, rest) = match spec.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (spec, None),
        };
        let info = find(name).ok_or_else(|| SpecError::UnknownAlgorithm {
            name: name.to_string(),
            known: algorithms().iter().map(|a| a.name).collect(),
        })?;
        let mut values = BTreeMap::new();
        for p in &info.params {
            values.insert(p.name, p.default);
        }
        let mut given = Vec::new();
        let items: Vec<&str> = rest
            .into_iter()
            .flat_map(|r| r.split(','))
            .map(str::trim)
            .collect();
        if items.iter().any(|i| i.is_empty()) {
            return Err(SpecError::EmptyItem {
                spec: spec.to_string(),
            });
        }
        for item in items {
            let (key, value) = item
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| SpecError::Malformed {
                    spec: spec.to_string(),
                    item: item.to_string(),
                })?;
            let param = info.params.iter().find(|p| p.name == key).ok_or_else(|| {
                SpecError::UnknownParameter {
                    algorithm: info.name,
                    param: key.to_string(),
                    valid: info.params.iter().map(|p| p.name).collect(),
                }
            })?;
            if given.contains(&param.name) {
                return Err(SpecError::Duplicate {
                    spec: spec.to_string(),
                    param: key.to_string(),
                });
            }
            given.push(param.name);
            values.insert(param.name, parse_value(info, param, value)?);
        }
        Ok(AlgorithmSpec {
            info,
            text: spec.to_string(),
            values,
            given,
        })
    }

    /// The algorithm's registry entry.
    pub fn info(&self) -> &'static AlgorithmInfo {
        self.info
    }

    /// The algorithm's name.
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    /// The algorithm's display name.
    pub fn display_name(&self) -> &'static str {
        self.info.display_name
    }

    /// Whether `name` was written in the spec (rather than defaulted).
    pub fn is_given(&self, name: &str) -> bool {
        self.given.contains(&name)
    }

    /// A declared parameter's value as `T`; `None` if the algorithm does
    /// not declare `name`. Panics if it is declared with another kind.
    pub fn get<T: ParamValue>(&self, name: &str) -> Option<T> {
        self.values.get(name).map(|v| T::from_value(*v))
    }

    /// The spec as written (trimmed).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Builds a controller.
    pub fn build(&self, config: &ControllerConfig) -> Box<dyn CongestionControl> {
        (self.info.build)(self, config)
    }

    /// A float parameter. Panics if `name` is not a declared float parameter
    /// (a programming error in the algorithm's constructor, not bad input).
    pub fn float(&self, name: &str) -> f64 {
        match self.values.get(name) {
            Some(Value::Float(v)) => *v,
            other => panic!(
                "{}: `{name}` is not a declared float parameter ({other:?})",
                self.info.name
            ),
        }
    }

    /// An integer parameter (see [`AlgorithmSpec::float`] on undeclared names).
    pub fn int(&self, name: &str) -> u64 {
        match self.values.get(name) {
            Some(Value::Int(v)) => *v,
            other => panic!(
                "{}: `{name}` is not a declared integer parameter ({other:?})",
                self.info.name
            ),
        }
    }

    /// A boolean parameter (see [`AlgorithmSpec::float`] on undeclared names).
    pub fn flag(&self, name: &str) -> bool {
        match self.values.get(name) {
            Some(Value::Bool(v)) => *v,
            other => panic!(
                "{}: `{name}` is not a declared boolean parameter ({other:?})",
                self.info.name
            ),
        }
    }
}

impl fmt::Display for AlgorithmSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why [`register`] refused an algorithm.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RegisterError {
    /// The name is taken.
    #[error("an algorithm named `{0}` is already registered")]
    Duplicate(String),
    /// The name is empty or contains a character of the spec syntax.
    #[error("`{0}` is not a valid algorithm name: use letters, digits, `-`, `_` or `.`")]
    BadName(String),
    /// Two parameters share a name, or a default is outside its range.
    #[error("`{algorithm}`: parameter `{param}`: {reason}")]
    BadParam {
        algorithm: String,
        param: String,
        reason: String,
    },
    /// A declared variant names an unknown parameter or a bad value.
    #[error("`{algorithm}`: variant `{variant}`: {reason}")]
    BadVariant {
        algorithm: String,
        variant: String,
        reason: String,
    },
}

fn registry() -> &'static RwLock<Vec<&'static AlgorithmInfo>> {
    static REGISTRY: OnceLock<RwLock<Vec<&'static AlgorithmInfo>>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut all = Vec::new();
        for info in crate::builtin_algorithms() {
            check(&info, &all).expect("built-in declarations are valid");
            all.push(&*Box::leak(Box::new(info)));
        }
        RwLock::new(all)
    })
}

fn check(info: &AlgorithmInfo, known: &[&'static AlgorithmInfo]) -> Result<(), RegisterError> {
    let valid_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if info.name.is_empty() || !info.name.chars().all(valid_char) {
        return Err(RegisterError::BadName(info.name.to_string()));
    }
    if known.iter().any(|a| a.name == info.name) {
        return Err(RegisterError::Duplicate(info.name.to_string()));
    }
    for (i, p) in info.params.iter().enumerate() {
        let bad = |reason: String| RegisterError::BadParam {
            algorithm: info.name.to_string(),
            param: p.name.to_string(),
            reason,
        };
        if info.params[..i].iter().any(|q| q.name == p.name) {
            return Err(bad("declared twice".to_string()));
        }
        parse_value(info, p, &p.default_text()).map_err(|e| bad(e.to_string()))?;
    }
    for v in &info.variants {
        let bad = |reason: String| RegisterError::BadVariant {
            algorithm: info.name.to_string(),
            variant: v.params.to_string(),
            reason,
        };
        for pair in v.params.split(',') {
            let Some((name, value)) = pair.split_once('=') else {
                return Err(bad(format!("`{pair}` is not name=value")));
            };
            let Some(p) = info.param(name.trim()) else {
                return Err(bad(format!("no parameter `{}`", name.trim())));
            };
            parse_value(info, p, value.trim()).map_err(|e| bad(e.to_string()))?;
        }
    }
    Ok(())
}

/// Adds an algorithm to the registry, so that spec strings naming it parse
/// everywhere in the process: the simulator, sweeps on worker threads, the
/// QUIC endpoint. Register before the first spec naming it is parsed.
/// Built-ins are registered from the start; a name can be registered once.
pub fn register(info: AlgorithmInfo) -> Result<&'static AlgorithmInfo, RegisterError> {
    let mut all = registry().write().expect("registry lock");
    check(&info, &all)?;
    let info: &'static AlgorithmInfo = Box::leak(Box::new(info));
    all.push(info);
    Ok(info)
}

/// Every registered algorithm: the built-ins in the order `bbrlab list`
/// shows them, then the ones added with [`register`], in their order.
pub fn algorithms() -> Vec<&'static AlgorithmInfo> {
    registry().read().expect("registry lock").clone()
}

/// The registered algorithm `name`.
pub fn find(name: &str) -> Option<&'static AlgorithmInfo> {
    registry()
        .read()
        .expect("registry lock")
        .iter()
        .find(|a| a.name == name)
        .copied()
}

fn parse_value(info: &AlgorithmInfo, param: &ParamSpec, text: &str) -> Result<Value, SpecError> {
    let bad = |expected: String| SpecError::BadValue {
        algorithm: info.name,
        param: param.name.to_string(),
        value: text.to_string(),
        expected,
    };
    match param.kind {
        ParamKind::Float { min, max } => {
            let v: f64 = text
                .parse()
                .map_err(|_| bad(format!("a number in [{min}, {max}]")))?;
            if !v.is_finite() || v < min || v > max {
                return Err(bad(format!("a number in [{min}, {max}]")));
            }
            Ok(Value::Float(v))
        }
        ParamKind::Int { min, max } => {
            let v: u64 = text
                .parse()
                .map_err(|_| bad(format!("an integer in [{min}, {max}]")))?;
            if v < min || v > max {
                return Err(bad(format!("an integer in [{min}, {max}]")));
            }
            Ok(Value::Int(v))
        }
        ParamKind::Bool => match text {
            "true" | "1" | "yes" | "on" => Ok(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(bad("true or false".to_string())),
        },
        ParamKind::Choice { names } => names
            .iter()
            .position(|n| *n == text)
            .or_else(|| text.parse::<usize>().ok().filter(|i| *i < names.len()))
            .map(Value::Choice)
            .ok_or_else(|| bad(format!("one of {}", names.join(", ")))),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn empty_parameter_lists_and_items_are_errors() {
        for spec in [
            "cubic:",
            "cubic:beta=0.7,,c=1",
            "cubic: ",
            "cubic:beta=0.7,",
        ] {
            let e = AlgorithmSpec::parse(spec).unwrap_err();
            assert!(matches!(e, SpecError::EmptyItem { .. }), "{spec}: {e}");
            assert!(
                e.to_string().starts_with("empty parameter list or item"),
                "{e}"
            );
        }
        assert!(AlgorithmSpec::parse("cubic:beta=0.7,c=0.4").is_ok());
        assert!(AlgorithmSpec::parse("cubic").is_ok());
    }

    use super::*;

    #[test]
    fn every_registered_algorithm_parses_with_defaults_and_builds() {
        for info in algorithms() {
            let spec = AlgorithmSpec::parse(info.name).unwrap();
            let cc = spec.build(&ControllerConfig::new(1, crate::Instant::ZERO));
            assert_eq!(cc.spec(), info.name);
            assert!(cc.cwnd() > crate::Bytes::ZERO);
        }
    }

    #[test]
    fn unknown_algorithm_lists_the_known_ones() {
        let err = AlgorithmSpec::parse("vegas").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("unknown algorithm `vegas`"), "{msg}");
        assert!(
            msg.contains("bbr") && msg.contains("cubic") && msg.contains("reno"),
            "{msg}"
        );
    }

    #[test]
    fn unknown_parameter_lists_the_valid_ones() {
        let msg = AlgorithmSpec::parse("bbr:mu=0.5").unwrap_err().to_string();
        assert!(msg.contains("`bbr` has no parameter `mu`"), "{msg}");
        assert!(msg.contains("lt_bw"), "{msg}");
    }

    #[test]
    fn out_of_range_and_malformed_values_are_rejected() {
        let msg = AlgorithmSpec::parse("cubic:beta=1.5")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("expected a number in"), "{msg}");
        let msg = AlgorithmSpec::parse("bbr:lt_bw=maybe")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("true or false"), "{msg}");
        assert!(matches!(
            AlgorithmSpec::parse("bbr:lt_bw"),
            Err(SpecError::Malformed { .. })
        ));
        assert!(matches!(
            AlgorithmSpec::parse("bbr:lt_bw=true,lt_bw=false"),
            Err(SpecError::Duplicate { .. })
        ));
    }

    #[test]
    fn explicit_values_override_defaults() {
        let spec = AlgorithmSpec::parse(" cubic : beta = 0.5 ").unwrap();
        assert_eq!(spec.float("beta"), 0.5);
        assert_eq!(spec.as_str(), "cubic : beta = 0.5");
    }

    #[test]
    fn choices_parse_by_name_and_by_their_old_integer_codes() {
        use crate::bbr2::{AdaptiveSpec, Bbr2Spec, HiReset, HiResetAt, StartupLossHi};
        for (text, want) in [
            ("bbr2", StartupLossHi::Cwnd),
            ("bbr2:startup_hi=bdp", StartupLossHi::Bdp),
            ("bbr2:startup_hi=1", StartupLossHi::Bdp),
            ("bbr2:startup_hi=2", StartupLossHi::MaxBdpLatest),
            (
                "bbr2:startup_hi=max_bdp_latest",
                StartupLossHi::MaxBdpLatest,
            ),
        ] {
            let spec = AlgorithmSpec::parse(text).unwrap();
            assert_eq!(Bbr2Spec::from_spec(&spec).startup_hi, want, "{text}");
        }
        let spec = AlgorithmSpec::parse("bbr2-adaptive:reset_to=0,reset_at=cycle").unwrap();
        let a = AdaptiveSpec::from_spec(&spec);
        assert_eq!(
            (a.reset_to, a.reset_at),
            (HiReset::Latest, HiResetAt::Cycle)
        );
        let msg = AlgorithmSpec::parse("bbr2:startup_hi=3")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("one of cwnd, bdp, max_bdp_latest"), "{msg}");
    }

    #[test]
    fn declared_variants_parse_and_bad_ones_are_refused_at_registration() {
        // Every declared variant of a registered algorithm is a valid spec.
        for info in algorithms() {
            for spec in info.specs() {
                AlgorithmSpec::parse(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            }
        }
        assert!(find("obbr")
            .unwrap()
            .specs()
            .contains(&"obbr:code=true".to_string()));
        let base = || AlgorithmInfo::new("v-test", "test", |_, _| unreachable!());
        let bbr = find("bbr").unwrap();
        for (params, want) in [
            ("nosuch=1", "no parameter `nosuch`"),
            ("cwnd_gain", "is not name=value"),
            ("cwnd_gain=x", "cwnd_gain"),
        ] {
            let err = check(&base().inherit(bbr).variant(params, "bad"), &[]).unwrap_err();
            assert!(matches!(err, RegisterError::BadVariant { .. }), "{err}");
            assert!(err.to_string().contains(want), "{params}: {err}");
        }
        assert!(check(&base().inherit(bbr).variant("cwnd_gain=3", "ok"), &[]).is_ok());
    }

    #[test]
    fn variants_inherit_their_parents_parameters_by_name() {
        let names =
            |n: &str| -> Vec<&str> { find(n).unwrap().params.iter().map(|p| p.name).collect() };
        assert_eq!(
            names("bbr-cws"),
            [
                "beta",
                "delta",
                "floor",
                "rtprop_reset",
                "cwnd_gain",
                "lt_bw",
                "extra_acked"
            ]
        );
        assert_eq!(find("bbr-cws").unwrap().parent, Some("bbr"));
        // bbr3 drops startup_hi and overrides two defaults in place.
        assert_eq!(
            names("bbr3"),
            [
                "loss_thresh",
                "beta",
                "headroom",
                "down_gain",
                "full_loss_cnt",
                "extra_acked",
                "drain_gain",
                "drain_round_cap"
            ]
        );
        let bbr3 = AlgorithmSpec::parse("bbr3").unwrap();
        assert_eq!(bbr3.float("down_gain"), 0.9);
        assert_eq!(bbr3.int("full_loss_cnt"), 6);
        assert_eq!(
            AlgorithmSpec::parse("bbr2").unwrap().int("full_loss_cnt"),
            8
        );
        // A variant without `pacing_margin` reads the core's default.
        let cws = AlgorithmSpec::parse("bbr-cws").unwrap();
        assert!(cws.get::<f64>("pacing_margin").is_none());
        assert_eq!(
            crate::bbr::BbrParams::from_spec(&cws).pacing_margin,
            crate::bbr::PACING_MARGIN
        );
    }

    #[test]
    fn register_adds_an_algorithm_once_and_checks_its_declaration() {
        let info = AlgorithmInfo::new("test-bbr-twin", "BBRv1 again", |spec, config| {
            Box::new(crate::bbr::Bbr::new(
                spec.as_str(),
                crate::bbr::BbrParams::default(),
                config,
            ))
        })
        .display_name("Twin");
        register(info.clone()).unwrap();
        let spec = AlgorithmSpec::parse("test-bbr-twin").unwrap();
        assert_eq!(spec.display_name(), "Twin");
        assert!(algorithms().iter().any(|a| a.name == "test-bbr-twin"));
        assert_eq!(
            register(info).unwrap_err(),
            RegisterError::Duplicate("test-bbr-twin".into())
        );
        assert!(matches!(
            register(AlgorithmInfo::new("bad:name", "", |_, c| Box::new(
                crate::reno::Reno::new(c)
            ))),
            Err(RegisterError::BadName(_))
        ));
        let twice =
            AlgorithmInfo::new("test-twice", "", |_, c| Box::new(crate::reno::Reno::new(c)))
                .inherit(find("cubic").unwrap());
        let mut twice = twice;
        let first = twice.params[0];
        twice.params.push(first);
        assert!(matches!(
            register(twice),
            Err(RegisterError::BadParam { .. })
        ));
    }
}
