const bytes = crypto.getRandomValues(new Uint8Array(16));
const words = crypto.getRandomValues(new Uint32Array(4));
const token = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const shuffled = [1, 2, 3, 4, 5, 6].sort(() => Math.random() - 0.5);
return {
  tokenLength: token.length,
  hex: /^[0-9a-f]{32}$/.test(token),
  sameArray: crypto.getRandomValues(bytes) === bytes,
  words: words.length,
  shuffledSum: shuffled.reduce((a, b) => a + b, 0),
  randomInRange: Array.from({ length: 100 }, () => Math.random()).every((x) => x >= 0 && x < 1),
};
