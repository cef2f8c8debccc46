interface A { n: number }
const a: A = { n: 1 };
const b: = 2;
