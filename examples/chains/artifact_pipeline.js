// A large result travels by reference: make_csv returns ~1200 KB, which the
// invoker stores as an artifact. It is above the chain's
// max_guest_value_bytes (1 MiB), so the script holds an Artifact
// ({$artifact, preview, size, mime}, with text(), json() and bytes() to read
// it) and passes it straight to csv_stats, which receives the full text on
// the host side: the 1.2 MB never enters the guest. A smaller result (up to
// 1 MiB) would arrive as the plain value, still stored. The chart comes back
// as a media file.
const csv = await tools.make_csv({ rows: 60000, seed: 7 });
console.log(`make_csv gave ${csv.$artifact ? "an artifact" : "inline data"} of ${csv.size} bytes (${csv.mime})`);

const stats = await tools.csv_stats({ csv });
const columns = Object.keys(stats.sums).sort();
const chart = await tools.render_chart({ values: columns.map(c => stats.sums[c]), width: 200, height: 100 });

return {
  rows: stats.rows,
  columns,
  preview_starts_with_header: csv.preview.startsWith(stats.columns.join(",")),
  chart_files: chart.files.map(f => ({ path: f.path, mime: f.mime })),
};
