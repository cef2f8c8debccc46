const file = await tools.file({ name: "hello.txt" });
const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
const text = new TextDecoder().decode(bytes);
const enc = new TextEncoder();
const users = await tools.users({ n: 6 });
const sizes = users.map((u) => ({ name: u.name, chars: u.name.length, bytes: enc.encode(u.name).length }));
console.log(text.trim());
return { text, byteLength: bytes.length, sizes, encoding: new TextDecoder().encoding };
