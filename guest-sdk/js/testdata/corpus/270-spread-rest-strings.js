// Spreading and destructuring strings into objects, as models write when
// they turn a code or a word into a lookup table, merge defaults, or pull
// the first characters off an identifier.
const sku = "AB-1042";
const bySlot = { ...sku };
console.log(Object.keys(bySlot).length, bySlot[2], bySlot["6"]);

const { 0: kind, 1: sub, ...tail } = sku;
console.log(kind, sub, tail);

const { length, ...letters } = "héllo";
console.log(length, letters);

// A concatenated string and a template literal spread the same way.
const id = "user_" + String(42) + "_" + "x".repeat(2);
const tpl = `${id.length}:${id.slice(0, 2)}`;
console.log({ ...id }, { ...tpl });

// Later spreads overwrite earlier indices; named keys keep their order.
const merged = { title: "t", ..."abc", ..."Z", note: "n" };
console.log(merged, Object.keys(merged));

// Astral characters spread as two UTF-16 units, empty strings as nothing.
const face = { ..."a😀" };
console.log(Object.keys(face), face[0], face[1].length, face[1] === "\ud83d", JSON.stringify({ ..."" }));

// Other primitives spread nothing; objects wrapping strings spread their indices.
console.log({ ...7, ...false, ...null, ...undefined, ...10n }, { ...Object("qr") }, { ...[..."st"] });

// In a function's parameters and in a loop.
function firstAndRest({ 0: head, ...rest }) { return [head, Object.values(rest).join("")]; }
const codes = ["XYZ", "Q", ""].map((c) => firstAndRest(c));
console.log(codes);
const counts = {};
for (const w of ["aa", "abc"]) for (const [k, v] of Object.entries({ ...w })) counts[k + v] = (counts[k + v] ?? 0) + 1;
return { bySlot, tail, letters, merged, counts, codes, spreadInArray: [{ ..."hi" }] };
