//! What the store's SQL needs to read alike on SQLite and PostgreSQL
//! through sqlx's Any driver.

use sqlx::any::{AnyTypeInfo, AnyTypeInfoKind, AnyValueRef};
use sqlx::error::BoxDynError;
use sqlx::{Any, Decode, Type, ValueRef};

/// A yes/no read from SQL: PostgreSQL answers `EXISTS`, `IS NULL` and
/// comparisons with a boolean, SQLite with 0 or 1, and the store's 0/1 flag
/// columns are integers on both. Any decodes a `bool` only from a boolean,
/// so every such read goes through here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Flag(pub bool);

impl From<Flag> for bool {
    fn from(flag: Flag) -> bool {
        flag.0
    }
}

impl Type<Any> for Flag {
    fn type_info() -> AnyTypeInfo {
        <bool as Type<Any>>::type_info()
    }

    fn compatible(ty: &AnyTypeInfo) -> bool {
        ty.kind() == AnyTypeInfoKind::Bool || ty.kind().is_integer()
    }
}

impl<'r> Decode<'r, Any> for Flag {
    fn decode(value: AnyValueRef<'r>) -> Result<Flag, BoxDynError> {
        if value.type_info().kind() == AnyTypeInfoKind::Bool {
            Ok(Flag(<bool as Decode<Any>>::decode(value)?))
        } else {
            Ok(Flag(<i64 as Decode<Any>>::decode(value)? != 0))
        }
    }
}
