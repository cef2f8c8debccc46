abstract class Formatter<T> {
  abstract row(item: T): string[];
  abstract readonly header: string[];
  render(items: T[]): string {
    const lines = [this.header, this.header.map(() => "---"), ...items.map((i) => this.row(i))];
    return lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n");
  }
}
interface Doc { title: string; url: string; published: string; score: number }
class DocFormatter extends Formatter<Doc> {
  readonly header = ["Title", "Host", "Year", "Score"];
  row(d: Doc): string[] {
    return [d.title, new URL(d.url).host, d.published.slice(0, 4), d.score.toFixed(2)];
  }
}
const docs: Doc[] = await tools.search({ q: "s", limit: 5 });
const md = new DocFormatter().render(docs);
console.log(md);
return md;
