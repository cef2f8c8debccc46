// A small word index over a Khmer product catalogue, the way a model builds
// search for a shop: the Khmer titles have no spaces between words, so the
// index needs Intl.Segmenter's dictionary cut to find "ទូរស័ព្ទ" (phone) in
// "ទូរស័ព្ទដៃថ្មី" (new mobile phone).
const products = [
  { sku: "KH-001", title: "ទូរស័ព្ទដៃថ្មីម៉ាកល្បី" },
  { sku: "KH-002", title: "កុំព្យូទ័រយួរដៃសម្រាប់សិស្ស" },
  { sku: "KH-003", title: "កាបូបស្ពាយសម្រាប់កុំព្យូទ័រ" },
  { sku: "KH-004", title: "សៀវភៅរៀនភាសាអង់គ្លេស" },
  { sku: "KH-005", title: "ទូរស័ព្ទលើតុសម្រាប់ការិយាល័យ" },
  { sku: "KH-006", title: "អាវយឺតកប្បាសសម្រាប់កុមារ (ទំហំ M)" },
];
const seg = new Intl.Segmenter("km", { granularity: "word" });
const index = {};
for (const p of products) {
  for (const s of seg.segment(p.title)) {
    if (!s.isWordLike) continue;
    (index[s.segment] ??= []).push(p.sku);
  }
}
const search = (q) => {
  const terms = [...seg.segment(q)].filter((s) => s.isWordLike).map((s) => s.segment);
  let hits = null;
  for (const t of terms) {
    const found = new Set(index[t] ?? []);
    hits = hits === null ? found : new Set([...hits].filter((x) => found.has(x)));
  }
  return { terms, hits: [...(hits ?? [])].sort() };
};
// Which word of a title is under position 5 (what a cursor would select).
const under = products.map((p) => seg.segment(p.title).containing(5)?.segment);
console.log(Object.keys(index).length, "indexed words");
return {
  phone: search("ទូរស័ព្ទ"),
  forStudents: search("កុំព្យូទ័រសម្រាប់សិស្ស"),
  book: search("សៀវភៅ"),
  under,
};
