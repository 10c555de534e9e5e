/**
 * The nesting depth of a JSON text (arrays and objects; strings skipped), found by one linear scan
 * that stops as soon as `limit` is passed. Run before `JSON.parse` on untrusted text: parsing a
 * deeply nested value succeeds, but any recursive walk over it afterwards (serialising it, copying
 * it, mapping it) overflows the stack with a RangeError.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}
