const docs = await tools.search({ q: "" });
const re = /^(?<scheme>https?):\/\/(?<host>[^/:?#]+)(?::(?<port>\d+))?/;
const hosts = docs.map((d) => d.url.match(re).groups);
const text = "Contact ana@example.com, ben.becker@mail.example.org or ops+alerts@example.net today.";
const emails = [...text.matchAll(/[\w.+-]+@([\w-]+\.)+\w+/g)].map((m) => m[0]);
const domains = emails.map((e) => e.split("@")[1]);
const dates = "2024-03-01, 2024-12-31 and 1999-01-09".replace(/(\d{4})-(\d{2})-(\d{2})/g, "$3/$2/$1");
return { hosts: hosts.map((h) => `${h.scheme}://${h.host}${h.port ? ":" + h.port : ""}`), emails, domains, dates };
