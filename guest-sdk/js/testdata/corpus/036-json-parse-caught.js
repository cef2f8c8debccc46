const inputs = ['{"ok":true}', "{bad json}", "", "[1, 2,]", '{"a": 1}trailing', "null"];
const results = inputs.map((s) => {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch (e) {
    return { ok: false, name: e.name, message: e.message };
  }
});
return results;
