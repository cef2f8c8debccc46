// Previews of Burmese support tickets cut at a word boundary, with word
// counts, the way a model drafts a ticket digest: Burmese is written
// without spaces between words (sometimes with zero-width spaces), so
// Intl.Segmenter cuts it by dictionary.
const tickets = [
  { id: 101, body: "ကျွန်တော့်အကောင့်ထဲကိုဝင်လို့မရပါဘူး။ စကားဝှက်ကိုပြောင်းပြီးပါပြီ။" },
  { id: 102, body: "ငွေပေးချေမှုအောင်မြင်သော်လည်းအော်ဒါမရောက်သေးပါ။" },
  { id: 103, body: "အက်ပ်ကိုဖွင့်လိုက်တိုင်းပိတ်သွားပါတယ်၊ ဖုန်းက Android 14 ပါ။" },
  { id: 104, body: "ပစ္စည်း\u200bကို\u200bပြန်\u200bအမ်း\u200bချင်\u200bပါ\u200bတယ်" },
  { id: 105, body: "ကျေးဇူးတင်ပါတယ်၊ ပြဿနာဖြေရှင်းပြီးပါပြီ။" },
];
const seg = new Intl.Segmenter("my", { granularity: "word" });
const preview = (text, maxWords) => {
  let words = 0;
  for (const s of seg.segment(text)) {
    if (s.isWordLike && ++words > maxWords) return text.slice(0, s.index).trimEnd() + "…";
  }
  return text;
};
const digest = tickets.map((t) => {
  const segs = [...seg.segment(t.body)];
  const words = segs.filter((s) => s.isWordLike).length;
  return { id: t.id, words, segments: segs.length, preview: preview(t.body, 4) };
});
for (const d of digest) console.log(`#${d.id} (${d.words} words) ${d.preview}`);
const total = digest.reduce((a, d) => a + d.words, 0);
return { total, average: +(total / digest.length).toFixed(2), digest };
