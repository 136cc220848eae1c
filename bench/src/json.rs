//! A small JSON value and its rendering, for the harness's JSON file (no dependency needed
//! for that much).

use std::fmt::Write as _;

/// A JSON value, rendered by [`Json::render`].
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number; not finite is written `null`.
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, its keys in this order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// A string value.
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// An object from `(key, value)` pairs.
    pub fn obj<const N: usize>(pairs: [(&str, Json); N]) -> Json {
        Json::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// `Some(x)` as `x`'s value, `None` as `null`.
    pub fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> Json) -> Json {
        v.map_or(Json::Null, f)
    }

    /// The value as JSON text, indented by two spaces per level.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        let pad = |out: &mut String, d: usize| {
            out.push('\n');
            out.push_str(&"  ".repeat(d));
        };
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) if !n.is_finite() => out.push_str("null"),
            Json::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => {
                let _ = write!(out, "{}", *n as i64);
            }
            Json::Num(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Str(s) => escape_into(out, s),
            Json::Arr(items) if items.is_empty() => out.push_str("[]"),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pad(out, depth + 1);
                    item.write(out, depth + 1);
                }
                pad(out, depth);
                out.push(']');
            }
            Json::Obj(pairs) if pairs.is_empty() => out.push_str("{}"),
            Json::Obj(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pad(out, depth + 1);
                    escape_into(out, k);
                    out.push_str(": ");
                    v.write(out, depth + 1);
                }
                pad(out, depth);
                out.push('}');
            }
        }
    }
}

/// `s` as a JSON string literal, quotes included.
pub fn escape(s: &str) -> String {
    let mut out = String::new();
    escape_into(&mut out, s);
    out
}

fn escape_into(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(escape("plain"), "\"plain\"");
        assert_eq!(escape("a \"q\" \\ b"), r#""a \"q\" \\ b""#);
        assert_eq!(escape("l1\nl2\tx\r"), r#""l1\nl2\tx\r""#);
        assert_eq!(escape("\u{1}≥"), "\"\\u0001≥\"");
    }

    #[test]
    fn json_rendering() {
        let v = Json::obj([
            ("n", Json::Num(3.0)),
            ("x", Json::Num(0.25)),
            ("inf", Json::Num(f64::INFINITY)),
            ("a", Json::Arr(vec![Json::Bool(true), Json::Null])),
            ("e", Json::Arr(vec![])),
            ("s", Json::str("say \"hi\"")),
        ]);
        assert_eq!(
            v.render(),
            "{\n  \"n\": 3,\n  \"x\": 0.25,\n  \"inf\": null,\n  \"a\": [\n    true,\n    null\n  ],\n  \"e\": [],\n  \"s\": \"say \\\"hi\\\"\"\n}\n"
        );
    }
}

#[cfg(test)]
/// A minimal JSON reader, enough to check that the rendering is valid and lossless.
pub(super) mod parse {
    use super::Json;

    pub fn value(s: &str) -> Result<Json, String> {
        let mut p = P {
            s: s.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at {}", p.i));
        }
        Ok(v)
    }

    struct P<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl P<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && b" \n\r\t".contains(&self.s[self.i]) {
                self.i += 1;
            }
        }

        fn eat(&mut self, lit: &str) -> bool {
            if self.s[self.i..].starts_with(lit.as_bytes()) {
                self.i += lit.len();
                true
            } else {
                false
            }
        }

        fn value(&mut self) -> Result<Json, String> {
            self.ws();
            let c = *self.s.get(self.i).ok_or("unexpected end")?;
            match c {
                b'n' if self.eat("null") => Ok(Json::Null),
                b't' if self.eat("true") => Ok(Json::Bool(true)),
                b'f' if self.eat("false") => Ok(Json::Bool(false)),
                b'"' => self.string().map(Json::Str),
                b'[' => {
                    self.i += 1;
                    let mut items = Vec::new();
                    self.ws();
                    if self.eat("]") {
                        return Ok(Json::Arr(items));
                    }
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        if self.eat("]") {
                            return Ok(Json::Arr(items));
                        }
                        if !self.eat(",") {
                            return Err(format!("expected , or ] at {}", self.i));
                        }
                    }
                }
                b'{' => {
                    self.i += 1;
                    let mut pairs = Vec::new();
                    self.ws();
                    if self.eat("}") {
                        return Ok(Json::Obj(pairs));
                    }
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.ws();
                        if !self.eat(":") {
                            return Err(format!("expected : at {}", self.i));
                        }
                        pairs.push((k, self.value()?));
                        self.ws();
                        if self.eat("}") {
                            return Ok(Json::Obj(pairs));
                        }
                        if !self.eat(",") {
                            return Err(format!("expected , or }} at {}", self.i));
                        }
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let start = self.i;
                    while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                        self.i += 1;
                    }
                    let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                    t.parse()
                        .map(Json::Num)
                        .map_err(|_| format!("bad number {t}"))
                }
                _ => Err(format!("unexpected {:?} at {}", c as char, self.i)),
            }
        }

        fn string(&mut self) -> Result<String, String> {
            if !self.eat("\"") {
                return Err(format!("expected a string at {}", self.i));
            }
            let mut out = Vec::new();
            loop {
                let c = *self.s.get(self.i).ok_or("unterminated string")?;
                self.i += 1;
                match c {
                    b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                    b'\\' => {
                        let e = *self.s.get(self.i).ok_or("bad escape")?;
                        self.i += 1;
                        let ch = match e {
                            b'"' => '"',
                            b'\\' => '\\',
                            b'/' => '/',
                            b'n' => '\n',
                            b'r' => '\r',
                            b't' => '\t',
                            b'b' => '\u{8}',
                            b'f' => '\u{c}',
                            b'u' => {
                                let hex = std::str::from_utf8(&self.s[self.i..self.i + 4])
                                    .map_err(|e| e.to_string())?;
                                self.i += 4;
                                let n = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                                char::from_u32(n).ok_or("surrogate")?
                            }
                            _ => return Err(format!("bad escape at {}", self.i)),
                        };
                        let mut buf = [0; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    c if c < 0x20 => return Err("raw control character".to_string()),
                    c => out.push(c),
                }
            }
        }
    }
}
