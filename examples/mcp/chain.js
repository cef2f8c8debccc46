// Weather of three cities from an MCP server, charted by one of airlock's
// own tools: one chain, six tool calls, one result.
const cities = ["New York", "Chicago", "Los Angeles"];

// Discovery from inside the sandbox: which tool reports weather?
const [hit] = await tools.$search("structured weather content");

// Three MCP calls at once; their structuredContent arrives as the value.
const reports = await Promise.all(cities.map((location) => tools[hit.name]({ location })));

// airlock's demo tool draws the chart (a PNG file, stored as an artifact).
const chart = await tools.render_chart({ values: reports.map((r) => r.temperature) });

// An MCP tool without an output schema answers in text.
const sum = await tools.everything_get_sum({ a: reports[0].humidity, b: reports[1].humidity });

// An MCP image result is a file too.
const logo = await tools.everything_get_tiny_image({});

return {
  tool: hit.name,
  weather: Object.fromEntries(cities.map((c, i) => [c, reports[i]])),
  hottest: cities[reports.reduce((best, r, i) => (r.temperature > reports[best].temperature ? i : best), 0)],
  chart: chart.files[0].path,
  humidity_sum: sum,
  logo: { mime: logo.files[0].mime, bytes: logo.files[0].size },
};
