/** The first key that appears twice in one object of a (well-formed) JSON text, else null. */
export function duplicateKey(text: string): string | null {
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') stack.push({ keys: new Set(), expectKey: true });
    else if (ch === '[') stack.push({ keys: null, expectKey: false });
    else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',') {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
    } else if (ch === ':') {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = false;
    } else if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          key = text.slice(i + 1, j);
        }
        if (top.keys.has(key)) return key;
        top.keys.add(key);
      }
      i = j;
    }
  }
  return null;
}
