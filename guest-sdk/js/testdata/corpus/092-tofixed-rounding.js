const values = [1.005, 2.675, 1.45, 0.1 + 0.2, 1e21, 123.456, -0.5, 5e-7];
return values.map((v) => ({
  v: String(v),
  fixed2: v.toFixed(2),
  prec3: v.toPrecision(3),
  exp: v.toExponential(2),
  round: Math.round(v * 100) / 100,
}));
