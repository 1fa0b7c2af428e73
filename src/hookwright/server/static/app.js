// hookwright chat page. The server keeps no conversation: this page keeps the history (in
// localStorage), sends all of it with every message and appends the messages of each "done"
// frame, persistent skill hook messages included, so those hooks come back on the next request.
// The server only accepts a WebSocket that carries the access token of the page's own URL
// (/?token=...), passed on as /ws?token=....
// What the page showed (hook decisions and notices included) is kept too, separately from the
// history the model sees, so a turn's notes keep their place and styling after it ends.
// Requests ask for permission prompts: a tool call that needs the user's approval shows the
// tool, its input and the reason with Allow / Deny; the answer goes back as a "permission" frame.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token") || "";
const HISTORY_KEY = "hookwright.history";
const SKILLS_KEY = "hookwright.skills";
const DISPLAY_KEY = "hookwright.display";

const log = document.getElementById("log");
const form = document.getElementById("chat");
const input = document.getElementById("input");
const sendButton = document.getElementById("send");
const skillsInput = document.getElementById("skills");
const statusLine = document.getElementById("status");

let history = loadHistory();
let socket = null;
let turn = null; // the request being streamed: {answer: element or null}

function loadList(key) {
  try {
    const stored = JSON.parse(localStorage.getItem(key) || "[]");
    return Array.isArray(stored) ? stored : [];
  } catch (error) {
    return [];
  }
}

function loadHistory() {
  return loadList(HISTORY_KEY);
}

function saveHistory() {
  localStorage.setItem(HISTORY_KEY, JSON.stringify(history));
}

// The log as shown: one {kind, label, text} per entry.
function saveDisplay() {
  const entries = Array.from(log.children).map((element) => ({
    kind: element.className.replace(/^msg ?/, ""),
    label: element.querySelector(".label")?.textContent || "",
    text: element.querySelector(".body")?.textContent || "",
  }));
  localStorage.setItem(DISPLAY_KEY, JSON.stringify(entries));
}

function shownContexts() {
  return new Set(
    Array.from(log.querySelectorAll(".msg.context .body")).map((body) => body.textContent),
  );
}

// What hooks added for the model (system messages that are not persistent skill hooks): a
// labelled note, each text once however many turns repeat it.
function addContexts(messages) {
  const shown = shownContexts();
  for (const message of messages) {
    if (message.role !== "system" || message._hook) continue;
    const text = contentText(message.content);
    if (!text || shown.has(text)) continue;
    shown.add(text);
    add("context", "hook context (for the model)", text);
  }
}

function setState(state, text) {
  document.body.dataset.state = state;
  statusLine.textContent = text;
  sendButton.disabled = state === "running";
}

function add(kind, label, text) {
  const element = document.createElement("div");
  element.className = `msg ${kind}`;
  if (label) {
    const caption = document.createElement("span");
    caption.className = "label";
    caption.textContent = label;
    element.appendChild(caption);
  }
  const body = document.createElement("span");
  body.className = "body";
  body.textContent = text;
  element.appendChild(body);
  log.appendChild(element);
  log.scrollTop = log.scrollHeight;
  return body;
}

function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => part.text || "").join("\n");
  return "";
}

function renderMessage(message, toolNames) {
  const text = contentText(message.content);
  if (message._hook) {
    add("hook", `hook ${message._hook} (${message.role})`, text);
  } else if (message.role === "user") {
    add("user", "you", text);
  } else if (message.role === "system") {
    addContexts([message]);
  } else if (message.role === "assistant") {
    if (text) add("assistant", "agent", text);
    for (const call of message.tool_calls || []) {
      toolNames[call.id] = call.function.name;
      add("tool", `→ ${call.function.name}`, call.function.arguments);
    }
  } else if (message.role === "tool") {
    add("tool", `← ${toolNames[message.tool_call_id] || "tool"}`, text);
  }
}

function renderHistory() {
  log.textContent = "";
  const shown = loadList(DISPLAY_KEY);
  if (shown.length > 0 || history.length === 0) {
    for (const entry of shown) add(entry.kind, entry.label, entry.text);
    return;
  }
  const toolNames = {};
  for (const message of history) renderMessage(message, toolNames);
}

function requestedSkills() {
  const raw = skillsInput.value.trim();
  if (raw === "") return null;
  if (raw === "-") return [];
  return raw.split(",").map((name) => name.trim()).filter(Boolean);
}

function connect() {
  if (socket && socket.readyState === WebSocket.OPEN) return Promise.resolve(socket);
  return new Promise((resolve, reject) => {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const url = `${scheme}//${location.host}/ws?token=${encodeURIComponent(TOKEN)}`;
    const next = new WebSocket(url);
    next.onopen = () => {
      socket = next;
      setState("idle", "connected");
      resolve(next);
    };
    next.onerror = () =>
      reject(new Error("cannot connect to the server (is it running? open the URL it printed)"));
    next.onmessage = (event) => handleFrame(JSON.parse(event.data));
    next.onclose = (event) => {
      if (socket === next) socket = null;
      if (turn) {
        closeOpenPermissions("not answered: the connection was lost; the call did not run");
        const why = event.reason ? ` (${event.reason})` : "";
        add("error", "error", `connection lost${why}; the request was cancelled`);
        turn = null;
      }
      setState("idle", "disconnected");
    };
  });
}

// A prompt waiting for the user: Allow / Deny send the answer; "permission_closed" (or a lost
// connection) replaces the buttons with the outcome.
function askPermission(frame) {
  const body = add("permission", `permission needed: ${frame.tool}`,
    `${JSON.stringify(frame.input)}\n${frame.reason}`);
  const element = body.parentElement;
  element.dataset.id = frame.id;
  const buttons = document.createElement("span");
  buttons.className = "answers";
  for (const [label, allow] of [["Allow", true], ["Deny", false]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = allow ? "allow" : "deny";
    button.textContent = label;
    button.addEventListener("click", () => {
      for (const each of buttons.querySelectorAll("button")) each.disabled = true;
      if (socket) socket.send(JSON.stringify({ type: "permission", id: frame.id, allow }));
    });
    buttons.appendChild(button);
  }
  element.appendChild(buttons);
}

function closePermission(id, outcome, allowed) {
  const element = log.querySelector(`.msg.permission[data-id="${id}"]`);
  if (!element) return;
  element.querySelector(".answers")?.remove();
  element.classList.add(allowed ? "allowed" : "denied");
  element.querySelector(".body").textContent += `\n→ ${outcome}`;
  delete element.dataset.id;
}

function closeOpenPermissions(outcome) {
  for (const element of log.querySelectorAll(".msg.permission[data-id]")) {
    closePermission(element.dataset.id, outcome, false);
  }
}

function handleFrame(frame) {
  switch (frame.type) {
    case "permission_request":
      askPermission(frame);
      break;
    case "permission_closed":
      closePermission(frame.id, frame.by === "timeout" ? "denied: no answer in time"
        : frame.allowed ? "allowed" : "denied", frame.allowed);
      break;
    case "text":
      if (!turn) return;
      if (!turn.answer) turn.answer = add("assistant", "agent", "");
      turn.answer.textContent += frame.delta;
      break;
    case "tool_call":
      if (turn) turn.answer = null;
      add("tool", `→ ${frame.name}`, JSON.stringify(frame.input));
      break;
    case "tool_result":
      add(frame.is_error ? "tool failed" : "tool", `← ${frame.name}`, frame.content);
      break;
    case "hook":
      add("hook", `hook ${frame.name} (${frame.role})`, frame.content);
      break;
    case "hook_result": {
      const decision = frame.decision || (frame.status !== "ok" ? "failed" : frame.effect);
      add(`note decision-${decision.replace(/[^a-z]+/g, "-")}`, "hook",
        `${frame.event}: ${frame.hook} → ${frame.effect}` +
        (frame.reason ? ` (${frame.reason})` : ""));
      break;
    }
    case "notice":
      add("note", "notice", frame.text);
      break;
    case "done":
      history = history.concat(frame.messages);
      saveHistory();
      addContexts(frame.messages);
      if (frame.status !== "completed") {
        add("note", "turn ended", `${frame.status}${frame.reason ? `: ${frame.reason}` : ""}`);
      }
      saveDisplay();
      turn = null;
      setState("idle", "connected");
      break;
    case "error":
      add("error", "error", frame.message);
      saveDisplay();
      turn = null;
      setState("idle", "connected");
      break;
  }
}

async function send(text) {
  if (turn) return;
  let open;
  try {
    open = await connect();
  } catch (error) {
    add("error", "error", error.message);
    return;
  }
  turn = { answer: null };
  setState("running", "running");
  add("user", "you", text);
  const frame = { type: "chat", history, message: text, permission_prompts: true };
  const skills = requestedSkills();
  if (skills !== null) frame.skills = skills;
  open.send(JSON.stringify(frame));
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || turn) return;
  input.value = "";
  send(text);
});

input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    form.requestSubmit();
  }
});

skillsInput.value = localStorage.getItem(SKILLS_KEY) || "";
skillsInput.addEventListener("change", () => localStorage.setItem(SKILLS_KEY, skillsInput.value));

document.getElementById("clear").addEventListener("click", () => {
  history = [];
  saveHistory();
  localStorage.removeItem(DISPLAY_KEY);
  renderHistory();
});

renderHistory();
setState("idle", "disconnected");
