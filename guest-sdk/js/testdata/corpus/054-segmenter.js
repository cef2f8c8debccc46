const text = "Café 👩‍👩‍👧 naïve 🇩🇪 ok";
const graphemes = [...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)].map((s) => s.segment);
const words = [...new Intl.Segmenter("en", { granularity: "word" }).segment("Hello, world! It's 2024.")]
  .filter((s) => s.isWordLike)
  .map((s) => s.segment);
const truncate = (s, n) => {
  const parts = [...new Intl.Segmenter().segment(s)].map((x) => x.segment);
  return parts.length > n ? parts.slice(0, n).join("") + "…" : s;
};
return { length: text.length, graphemes: graphemes.length, words, short: truncate(text, 7) };
