// A script that throws.
const x = 1;
throw new Error("boom " + x);
