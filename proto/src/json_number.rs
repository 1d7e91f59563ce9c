//! A faster stand-in for pbjson's number reader, swapped into the generated
//! serde code by `build.rs`. The proto3 JSON mapping lets a number arrive as
//! a JSON number or a string; pbjson tries the string form first through an
//! untagged enum, which buffers the value and formats an error message for
//! every plain number. This reader asks the JSON parser for whatever is
//! there and converts it, with the same results and no detour.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{Deserializer, Error, Visitor};

/// A number field's value, read from a JSON number or a string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberDeserialize<T>(pub T);

/// The numeric types of protobuf scalars.
pub trait WireNumber: Sized + FromStr {
    fn from_u64(n: u64) -> Option<Self>;
    fn from_i64(n: i64) -> Option<Self>;
    fn from_f64(n: f64) -> Option<Self>;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl WireNumber for $t {
            fn from_u64(n: u64) -> Option<Self> {
                <$t>::try_from(n).ok()
            }
            fn from_i64(n: i64) -> Option<Self> {
                <$t>::try_from(n).ok()
            }
            fn from_f64(n: f64) -> Option<Self> {
                // proto3 JSON accepts `3.0` for an integer field, not `3.5`.
                (n.fract() == 0.0 && n >= <$t>::MIN as f64 && n <= <$t>::MAX as f64).then_some(n as $t)
            }
        }
    )*};
}
integer!(u32, i32, u64, i64);

macro_rules! float {
    ($($t:ty),*) => {$(
        impl WireNumber for $t {
            fn from_u64(n: u64) -> Option<Self> {
                Some(n as $t)
            }
            fn from_i64(n: i64) -> Option<Self> {
                Some(n as $t)
            }
            fn from_f64(n: f64) -> Option<Self> {
                Some(n as $t)
            }
        }
    )*};
}
float!(f32, f64);

struct NumberVisitor<T>(PhantomData<T>);

impl<T: WireNumber> Visitor<'_> for NumberVisitor<T> {
    type Value = NumberDeserialize<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a number, or a number in a string")
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Self::Value, E> {
        T::from_u64(n)
            .map(NumberDeserialize)
            .ok_or_else(|| E::custom(format!("{n} is out of range")))
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Self::Value, E> {
        T::from_i64(n)
            .map(NumberDeserialize)
            .ok_or_else(|| E::custom(format!("{n} is out of range")))
    }

    fn visit_f64<E: Error>(self, n: f64) -> Result<Self::Value, E> {
        T::from_f64(n)
            .map(NumberDeserialize)
            .ok_or_else(|| E::custom(format!("{n} is not a valid value here")))
    }

    fn visit_str<E: Error>(self, text: &str) -> Result<Self::Value, E> {
        text.parse()
            .map(NumberDeserialize)
            .map_err(|_| E::custom(format!("`{text}` is not a number")))
    }
}

impl<'de, T: WireNumber> serde::Deserialize<'de> for NumberDeserialize<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NumberVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T: WireNumber>(json: &str) -> Result<T, serde_json::Error> {
        serde_json::from_str::<NumberDeserialize<T>>(json).map(|n| n.0)
    }

    #[test]
    fn numbers_arrive_as_numbers_or_strings_and_out_of_range_is_refused() {
        assert_eq!(read::<u32>("7").unwrap(), 7);
        assert_eq!(read::<u32>("\"7\"").unwrap(), 7);
        assert_eq!(read::<i32>("-3").unwrap(), -3);
        assert_eq!(read::<u32>("3.0").unwrap(), 3);
        assert!(read::<u32>("-1").is_err());
        assert!(read::<u32>("4294967296").is_err());
        assert!(read::<u32>("2.5").is_err());
        assert!(read::<u32>("\"x\"").is_err());
        assert!(read::<u32>("true").is_err());
        assert_eq!(read::<f64>("2.5").unwrap(), 2.5);
    }
}
