// A Server-Sent Events parser over a fetch body, by the event-stream rules
// of the HTML standard: lines end in CRLF, LF or CR; a blank line
// dispatches; `:` starts a comment; `data` lines join with newlines; `id`
// sets the last event id (one holding NUL is ignored); `retry` sets the
// reconnection delay.

/** One dispatched event. */
export interface RawEvent {
  /** The event's name; "message" when it named none. */
  event: string;
  /** The data lines joined with "\n". */
  data: string;
  /** The last event id at dispatch (the stream's, not only this event's). */
  lastEventId: string;
}

/** What the parser learned besides events. */
export interface StreamState {
  lastEventId: string;
  /** The server's reconnection delay in ms, when it sent one. */
  retry?: number;
}

/** The most bytes one event (or one line) may hold before the stream is refused. */
export const maxEventBytes = 16 << 20;

/**
 * parseEvents yields the events of body. state.lastEventId starts as the
 * id the stream was opened after and follows the stream's `id` fields, so
 * a caller can reconnect with it.
 */
export async function* parseEvents(body: ReadableStream<Uint8Array>, state: StreamState): AsyncGenerator<RawEvent> {
  const decoder = new TextDecoder("utf-8");
  const reader = body.getReader();
  let buf = "";
  let data: string[] = [];
  let dataBytes = 0;
  let event = "";
  let lastCR = false; // the previous chunk ended in CR: a following LF is part of that line end
  try {
    for (;;) {
      const { value, done } = await reader.read();
      let chunk = done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (lastCR && chunk.startsWith("\n")) chunk = chunk.slice(1);
      lastCR = false;
      buf += chunk;
      for (;;) {
        const i = buf.search(/[\r\n]/);
        if (i < 0) break;
        const line = buf.slice(0, i);
        let skip = 1;
        if (buf[i] === "\r") {
          if (i + 1 < buf.length) {
            if (buf[i + 1] === "\n") skip = 2;
          } else {
            lastCR = true;
          }
        }
        buf = buf.slice(i + skip);
        if (line === "") {
          if (data.length > 0) {
            yield { event: event || "message", data: data.join("\n"), lastEventId: state.lastEventId };
          }
          data = [];
          dataBytes = 0;
          event = "";
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        switch (field) {
          case "event":
            event = val;
            break;
          case "data":
            dataBytes += val.length + 1;
            if (dataBytes > maxEventBytes) throw new Error(`an event of the stream is larger than ${maxEventBytes} bytes`);
            data.push(val);
            break;
          case "id":
            if (!val.includes("\0")) state.lastEventId = val;
            break;
          case "retry":
            if (/^[0-9]+$/.test(val)) state.retry = Number(val);
            break;
        }
      }
      if (buf.length > maxEventBytes) throw new Error(`a line of the stream is longer than ${maxEventBytes} bytes`);
      if (done) return; // an event without its blank line is dropped, as the standard says
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}
