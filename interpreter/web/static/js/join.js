// The join page: the table's code (from the link or the QR, or typed) and the player's
// name; the server gives a seat (its cookie) and the page goes to the table.

const CSRF = document.querySelector('meta[name="csrf-token"]')?.content || "";
const form = document.querySelector("#join-form");
const code = document.querySelector("#join-code");
const fromLink = new URLSearchParams(location.search).get("code");
if (fromLink) code.value = fromLink;
document.querySelector(fromLink ? "#join-player" : "#join-code").focus();

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const box = document.querySelector("#join-error");
  box.hidden = true;
  const response = await fetch("/api/table/join", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": CSRF, accept: "application/json" },
    body: JSON.stringify({ code: code.value, player: document.querySelector("#join-player").value }),
  });
  if (response.ok) {
    location.assign("/");
    return;
  }
  let message = `${response.status}`;
  try {
    const { error } = await response.json();
    message = [error.message, error.hint].filter(Boolean).join(" — ");
  } catch {
    // not JSON: the status says it
  }
  box.textContent = message;
  box.hidden = false;
});
