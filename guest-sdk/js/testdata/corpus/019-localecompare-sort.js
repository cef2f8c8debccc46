const users = await tools.users({ n: 26 });
const names = [...new Set(users.map((u) => u.name.split(" ")[1]))];
const plain = [...names].sort();
const locale = [...names].sort((a, b) => a.localeCompare(b));
const german = [...names].sort(new Intl.Collator("de-DE").compare);
const swedish = [...names].sort(new Intl.Collator("sv").compare);
console.log(locale.join(", "));
return { plain, locale, german, swedish, same: plain.join() === locale.join() };
