// Part of the prelude: artifacts. A tool result the host stored (too large
// to keep inline in the trace) reaches the script in one of two forms
// (chain.Envelope): as the tool's own value when it is small enough for the
// guest, or as an Artifact whose content text(), json() and bytes() read
// through OP_READ.
const OP_READ = 12, READ_TEXT = 0, READ_BASE64 = 1, READ_ERROR = 2;

class ArtifactError extends Error {
  constructor(ref, e) {
    super(typeof e.message === "string" ? e.message : `artifact ${ref}: ${e.reason}`);
    this.name = "ArtifactError";
    this.ref = ref;
    this.reason = typeof e.reason === "string" ? e.reason : "";
  }
}

function readArtifact(ref, mode) {
  return new Promise((resolve, reject) => {
    const out = host(OP_READ, String(ref), mode);
    if (typeof out === "string") resolve(out);
    else reject(new ArtifactError(ref, JSON.parse(host(OP_READ, "", READ_ERROR))));
  });
}

const ARTIFACT_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const artifactB64 = new Uint8Array(128);
for (let i = 0; i < ARTIFACT_B64.length; i++) artifactB64[ARTIFACT_B64.charCodeAt(i)] = i;

function fromBase64(s) {
  const pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  for (let i = 0, o = 0; i < s.length; i += 4) {
    const n = (artifactB64[s.charCodeAt(i)] << 18) | (artifactB64[s.charCodeAt(i + 1)] << 12) |
      (artifactB64[s.charCodeAt(i + 2)] << 6) | artifactB64[s.charCodeAt(i + 3)];
    out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

// Artifact is a stored result: its fields are the envelope's, so passing
// it to another tool (or returning it) sends {"$artifact": ref, …}, which
// the host resolves to the content.
class Artifact {
  constructor(a) {
    this.$artifact = a.$artifact;
    this.preview = a.preview;
    this.size = a.size;
    this.mime = a.mime;
  }
  text() { return readArtifact(this.$artifact, READ_TEXT); }
  json() { return readArtifact(this.$artifact, READ_TEXT).then((t) => JSON.parse(t)); }
  bytes() { return readArtifact(this.$artifact, READ_BASE64).then(fromBase64); }
}

// resultValue turns an ok envelope into the value the script gets: a
// plain value as it is (a copy the script may change and pass on like any
// other), an envelope as an Artifact, also inside a media result's
// {value, files}.
function resultValue(env) {
  const v = env.value === undefined ? null : env.value;
  const a = env.artifact;
  if (env.plain !== false || a === null || typeof a !== "object") return v;
  const isEnvelope = (x) => x !== null && typeof x === "object" && x.$artifact === a.$artifact;
  if (isEnvelope(v)) return new Artifact(a);
  if (v !== null && typeof v === "object" && isEnvelope(v.value)) v.value = new Artifact(a);
  return v;
}
