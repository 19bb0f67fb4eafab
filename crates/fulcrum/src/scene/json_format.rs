//! Pretty-printing of compact JSON for scene files people read and edit: objects and arrays
//! expand one entry per line, except that a short container holding no object stays on one
//! line (`"position": [0.0, 2.0, 0.0]`, `"shape": {"type": "sphere", "radius": 0.5}`).
//!
//! It reformats the compact text serde_json writes (so numbers keep serde_json's shortest
//! round-trip `f32` digits) and relies on that text having no whitespace outside strings.

/// Widest line (indent included) a container may take when kept on one line.
const INLINE_WIDTH: usize = 100;

/// Spaces per nesting level.
const INDENT: usize = 2;

/// Pretty JSON of `compact` (valid compact JSON), ending in a newline.
pub(crate) fn pretty(compact: &str) -> String {
    let bytes = compact.as_bytes();
    let info = container_info(bytes);
    let mut out = String::with_capacity(compact.len() * 2);
    if !bytes.is_empty() {
        write_value(compact, &info, 0, 0, 0, &mut out);
    }
    out.push('\n');
    out
}

/// For each byte that opens a container: the index of its closing byte and whether an object
/// is nested inside it.
struct ContainerInfo {
    close: Vec<usize>,
    holds_object: Vec<bool>,
}

fn container_info(bytes: &[u8]) -> ContainerInfo {
    let mut close = vec![usize::MAX; bytes.len()];
    let mut holds_object = vec![false; bytes.len()];
    let mut stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'{' | b'[' => {
                if bytes[i] == b'{' {
                    for &open in &stack {
                        holds_object[open] = true;
                    }
                }
                stack.push(i);
            }
            b'}' | b']' => {
                if let Some(open) = stack.pop() {
                    close[open] = i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    ContainerInfo { close, holds_object }
}

/// Index of the quote closing the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i.min(bytes.len().saturating_sub(1))
}

/// One past the end of the value starting at `start`.
fn value_end(bytes: &[u8], info: &ContainerInfo, start: usize) -> usize {
    match bytes[start] {
        b'{' | b'[' => info.close[start].min(bytes.len() - 1) + 1,
        b'"' => string_end(bytes, start) + 1,
        _ => {
            let mut i = start;
            while i < bytes.len() && !matches!(bytes[i], b',' | b'}' | b']') {
                i += 1;
            }
            i
        }
    }
}

/// The value at `start` on one line, with a space after each `,` and `:` outside strings.
fn inline(text: &str, start: usize, end: usize) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(end - start + 16);
    let mut i = start;
    while i < end {
        match bytes[i] {
            b'"' => {
                let close = string_end(bytes, i);
                out.push_str(&text[i..=close]);
                i = close + 1;
                continue;
            }
            b',' => out.push_str(", "),
            b':' => out.push_str(": "),
            _ => out.push_str(&text[i..i + 1]),
        }
        i += 1;
    }
    out
}

/// Writes the value starting at `start`, `column` characters into a line indented by `indent`.
fn write_value(text: &str, info: &ContainerInfo, start: usize, indent: usize, column: usize, out: &mut String) {
    let bytes = text.as_bytes();
    let end = value_end(bytes, info, start);
    let is_container = matches!(bytes[start], b'{' | b'[');
    if !is_container || !info.holds_object[start] {
        let one_line = inline(text, start, end);
        if !is_container || column + one_line.len() <= INLINE_WIDTH {
            out.push_str(&one_line);
            return;
        }
    }
    write_expanded(text, info, start, indent, out);
}

/// Writes a container one entry per line, its entries indented one level below `indent`.
fn write_expanded(text: &str, info: &ContainerInfo, start: usize, indent: usize, out: &mut String) {
    let bytes = text.as_bytes();
    let close = info.close[start].min(bytes.len() - 1);
    let entry_indent = indent + INDENT;
    let is_object = bytes[start] == b'{';
    out.push(bytes[start] as char);
    let mut i = start + 1;
    let mut first = true;
    while i < close {
        out.push_str(if first { "\n" } else { ",\n" });
        first = false;
        out.push_str(&" ".repeat(entry_indent));
        let mut entry_column = entry_indent;
        if is_object {
            let key_end = string_end(bytes, i);
            out.push_str(&text[i..=key_end]);
            out.push_str(": ");
            entry_column += key_end + 1 - i + 2;
            i = key_end + 2;
        }
        write_value(text, info, i, entry_indent, entry_column, out);
        i = value_end(bytes, info, i);
        if i < close && bytes[i] == b',' {
            i += 1;
        }
    }
    if !first {
        out.push('\n');
        out.push_str(&" ".repeat(indent));
    }
    out.push(bytes[close] as char);
}

#[cfg(test)]
mod tests {
    use super::pretty;

    #[test]
    fn short_containers_stay_on_one_line_and_objects_expand() {
        let compact = r#"{"a":[1.0,2.0,3.0],"b":{"type":"box","s":"x,y:{"},"c":[{"d":1}],"e":[]}"#;
        let expected = "{\n  \"a\": [1.0, 2.0, 3.0],\n  \"b\": {\"type\": \"box\", \"s\": \"x,y:{\"},\n  \"c\": [\n    {\"d\": 1}\n  ],\n  \"e\": []\n}\n";
        assert_eq!(pretty(compact), expected);
        let reparsed: serde_json::Value = serde_json::from_str(&pretty(compact)).unwrap();
        assert_eq!(reparsed, serde_json::from_str::<serde_json::Value>(compact).unwrap());
    }

    #[test]
    fn long_arrays_expand_with_short_entries_inline() {
        let points: Vec<String> = (0..20).map(|i| format!("[{i}.5,0.25,-1.0]")).collect();
        let compact = format!("{{\"points\":[{}]}}", points.join(","));
        let text = pretty(&compact);
        assert!(text.contains("\"points\": [\n    [0.5, 0.25, -1.0],\n    [1.5, 0.25, -1.0],"), "{text}");
        assert!(text.lines().all(|line| line.len() <= super::INLINE_WIDTH));
        let reparsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(reparsed, serde_json::from_str::<serde_json::Value>(&compact).unwrap());
    }
}
