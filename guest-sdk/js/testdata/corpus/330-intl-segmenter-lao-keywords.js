// Keyword counts over Lao news headlines with Intl.Segmenter, the way a
// model tags a feed: Lao is written without spaces between words, so ICU
// cuts it by dictionary.
const headlines = [
  "ລັດຖະບານລາວປະກາດນະໂຍບາຍໃໝ່ເພື່ອພັດທະນາເສດຖະກິດ",
  "ນັກທ່ອງທ່ຽວຕ່າງປະເທດມາທ່ຽວຫຼວງພະບາງເພີ່ມຂຶ້ນ 20%",
  "ກະຊວງສາທາລະນະສຸກລາຍງານວ່າມີຜູ້ປ່ວຍໄຂ້ເລືອດອອກເພີ່ມຂຶ້ນ",
  "ລົດໄຟລາວ-ຈີນຂົນສົ່ງສິນຄ້າໄດ້ຫຼາຍກວ່າເກົ່າ",
  "ນະຄອນຫຼວງວຽງຈັນກຽມພ້ອມຈັດງານບຸນທາດຫຼວງ",
  "ລາຄານ້ຳມັນເພີ່ມຂຶ້ນອີກ 500 ກີບຕໍ່ລິດ",
  "ກະສິກອນແຂວງສະຫວັນນະເຂດປູກເຂົ້າໄດ້ຜົນດີ",
  "ທະນາຄານແຫ່ງ ສປປ ລາວ ປະກາດອັດຕາແລກປ່ຽນໃໝ່",
];
const seg = new Intl.Segmenter("lo", { granularity: "word" });
const counts = new Map();
const perHeadline = [];
for (const h of headlines) {
  const words = [...seg.segment(h)].filter((s) => s.isWordLike).map((s) => s.segment);
  perHeadline.push(words.length);
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  console.log(words.length, words.join(" | "));
}
const repeated = [...counts].filter(([, n]) => n > 1).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
console.log("distinct words:", counts.size);
return {
  headlines: headlines.length,
  words: perHeadline.reduce((a, b) => a + b, 0),
  longest: Math.max(...perHeadline),
  repeated,
};
