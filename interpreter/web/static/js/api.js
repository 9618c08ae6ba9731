// Talking to the server: JSON in and out; the project's errors as ApiError.

export class ApiError extends Error {
  constructor(error, status) {
    super(error && error.message ? error.message : `HTTP ${status}`);
    this.error = error || {};
    this.status = status;
  }
  // The error as the command line prints it: place, message, the line with a caret, hint.
  get text() {
    return errorText(this.error);
  }
}

async function answer(response) {
  let data;
  try {
    data = await response.json();
  } catch {
    throw new ApiError({ message: `${response.status} ${response.statusText}` }, response.status);
  }
  if (!response.ok) throw new ApiError(data.error, response.status);
  return data;
}

// The server's CSRF token, served with the page: every request that posts carries it
// (the server refuses one without it). The server's own token, if it asks for one, is in
// a cookie the page's scripts cannot read, sent by the browser itself.
const CSRF = document.querySelector('meta[name="csrf-token"]')?.content || "";

// This page's own mark, sent with what it posts: the table's log says which page did what,
// so that a page does not refresh itself for what it did (static/js/table.js).
export const PAGE = Math.random().toString(36).slice(2, 12);

function posting(headers = {}) {
  return { "content-type": "application/json", "x-csrf-token": CSRF, "x-rulebook-page": PAGE, ...headers };
}

export async function get(path) {
  return answer(await fetch(path, { headers: { accept: "application/json" } }));
}

export async function send(path, body, method = "POST", headers = {}) {
  return answer(
    await fetch(path, {
      method,
      headers: posting({ accept: "application/json", ...headers }),
      body: JSON.stringify(body),
    }),
  );
}

// A streamed answer: one JSON object per line, each handed to onLine as it arrives.
export async function stream(path, body, onLine) {
  const response = await fetch(path, {
    method: "POST",
    headers: posting(),
    body: JSON.stringify(body),
  });
  if (!response.ok) return answer(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffered += decoder.decode(value, { stream: !done });
    let end;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (line) onLine(JSON.parse(line));
    }
    if (done) break;
  }
}

export const quote = encodeURIComponent;

// An error document's error (schema: error) as text, as `rulebook` prints it.
export function errorText(error) {
  if (!error) return "";
  const where = error.location;
  const lines = [];
  if (where) {
    lines.push(`${where.file}:${where.line}:${where.column}: ${error.message}`);
    if (where.source_line) {
      const width = where.end_line === where.line ? Math.max(1, where.end_column - where.column) : 1;
      lines.push(`    ${where.source_line}`, `    ${" ".repeat(where.column - 1)}${"^".repeat(width)}`);
    }
  } else lines.push(error.file ? `${error.file}: ${error.message}` : error.message);
  if (error.hint) lines.push(`    ${error.hint}`);
  for (const d of error.diagnostics || []) if (d !== error) lines.push(errorText({ ...d, diagnostics: [] }));
  return lines.join("\n");
}
