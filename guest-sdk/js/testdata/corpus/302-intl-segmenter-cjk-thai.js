// Word counts of Japanese, Chinese and Thai reviews with Intl.Segmenter,
// the way a model summarises feedback: ICU cuts these scripts by
// dictionary, not one character at a time.
const reviews = [
  ["ja", "配送がとても早くて、商品の品質も素晴らしいです。また購入したいと思います。"],
  ["ja", "サイズが少し小さかったけど、デザインはとても気に入りました。"],
  ["zh", "这个产品的质量非常好，物流也很快，我会推荐给朋友。"],
  ["zh", "价格有点贵，但是客服的态度很好。"],
  ["th", "สินค้าคุณภาพดีมาก จัดส่งรวดเร็ว ประทับใจครับ"],
  ["th", "ราคาแพงไปหน่อย แต่บริการดีมากๆ จะกลับมาซื้ออีก"],
];
const report = {};
for (const [lang, text] of reviews) {
  const seg = new Intl.Segmenter(lang, { granularity: "word" });
  const words = [...seg.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment);
  const counts = report[lang] ??= {};
  for (const w of words) counts[w] = (counts[w] ?? 0) + 1;
  console.log(lang, words.length, words.join("/"));
}
const top = Object.fromEntries(Object.entries(report).map(([lang, counts]) => [
  lang,
  Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5),
]));
return top;
