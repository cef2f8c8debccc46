// Part of the prelude: Intl.Segmenter and the locale-aware case methods.
// A request carries at most MAX_INTL_REQUEST bytes, so long strings go in
// chunks split where no segment or case mapping can span them.
const CHUNK = 10000; // JSON writes a control character as 6 bytes: 60,000 fit
function chunks(s, cut) {
  const out = [];
  let start = 0;
  while (s.length - start > CHUNK) {
    const end = cut(s, start + CHUNK, start);
    out.push(s.slice(start, end));
    start = end;
  }
  out.push(s.slice(start));
  return out;
}
// A line feed ends every grapheme, word and sentence segment.
function afterLineFeed(s, limit, start) {
  const i = s.lastIndexOf("\n", limit - 1);
  if (i < start) throw new RangeError(`Intl.Segmenter: a text of more than ${CHUNK} characters without a line break`);
  return i + 1;
}
// Case mappings look at most at the next character (combining marks).
function beforeBase(s, limit) {
  let i = limit;
  while (i > limit - 64 && /[\u0300-\u036f\udc00-\udfff]/.test(s[i])) i--;
  return i;
}

const segResolved = new WeakMap();
class Segmenter {
  constructor(locales, options) {
    segResolved.set(this, intlCall({ op: "seg", l: localeList(locales), o: readOpts(options, ["granularity"]) }).r);
  }
  segment(input) {
    const r = resolvedOf(segResolved, this, "Segmenter.prototype.segment");
    const s = String(input), bounds = [];
    let offset = 0;
    for (const part of chunks(s, afterLineFeed)) {
      for (const b of intlCall({ op: "seg", l: [r.locale], o: r, v: part }).b) {
        bounds.push([b[0] + offset, b[1] + offset, b[2]]);
      }
      offset += part.length;
    }
    const word = r.granularity === "word";
    const data = ([a, b, w]) => {
      const d = { segment: s.slice(a, b), index: a, input: s };
      if (word) d.isWordLike = w === 1;
      return d;
    };
    return {
      containing(i) {
        const n = Math.trunc(Number(i) || 0);
        if (n < 0 || n >= s.length) return undefined;
        let lo = 0, hi = bounds.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (bounds[mid][1] <= n) lo = mid + 1; else hi = mid;
        }
        return data(bounds[lo]);
      },
      *[Symbol.iterator]() { for (const b of bounds) yield data(b); },
    };
  }
  resolvedOptions() { return { ...resolvedOf(segResolved, this, "Segmenter.prototype.resolvedOptions") }; }
}
intlClass("Segmenter", Segmenter);

for (const [name, upper, plain] of [["toLocaleUpperCase", true, String.prototype.toUpperCase],
  ["toLocaleLowerCase", false, String.prototype.toLowerCase]]) {
  defineMethod(String.prototype, name, {
    [name](locales = void 0) { // length 0, as V8's
      if (this === undefined || this === null) throw new TypeError(`String.prototype.${name} called on null or undefined`);
      const s = String(this);
      const l = localeList(locales);
      if (l.length === 0) return plain.call(s);
      return chunks(s, beforeBase).map((part) => intlCall({ op: "case", l, o: { upper }, v: part }).s).join("");
    },
  }[name]);
}
