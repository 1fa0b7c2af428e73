// hookwright chat page. The server keeps no conversation: this page keeps the history (in
// localStorage), sends all of it with every message and appends the messages of each "done"
// frame, persistent skill hook messages included, so those hooks come back on the next request.
// The server only accepts a WebSocket that carries the access token of the page's own URL
// (/?token=...), passed on as /ws?token=....
// What the page showed (hook decisions and notices included) is kept too, separately from the
// history the model sees, so a turn's notes keep their place and styling after it ends.
// Requests ask for permission prompts: a tool call that needs the user's approval shows the
// tool, its input and the reason with Allow / Deny; the answer goes back as a "permission" frame.
// An MCP server's request for input (elicitation) shows the server, its message and a form
// built from the requested schema (or the URL to visit) with Accept / Decline / Cancel; the
// answer goes back as an "elicitation" frame, and the server checks it against the schema.
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

// The log as shown: one {kind, label, text, badges, fix} per entry, so a reload shows each
// hook's system and file badges as they were.
function saveDisplay() {
  const entries = Array.from(log.children).map((element) => {
    const caption = element.querySelector(".label");
    const badges = Array.from(element.querySelectorAll(".label .badge")).map((badge) => ({
      kind: badge.className.replace(/^badge ?/, ""),
      text: badge.textContent,
    }));
    return {
      kind: element.className.replace(/^msg ?/, ""),
      label: (badges.length ? caption.firstChild.textContent : caption?.textContent) || "",
      text: element.querySelector(".body")?.textContent || "",
      badges,
      fix: element.querySelector(".fix")?.dataset.fix || "",
    };
  });
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

// `badges`: [{kind, text}] after the label, e.g. a hook's system and the file it came from.
// `fix`: what makes a failed hook work (its dialect's `fix`), shown under the failure.
function add(kind, label, text, badges = [], fix = "") {
  const element = document.createElement("div");
  element.className = `msg ${kind}`;
  if (label) {
    const caption = document.createElement("span");
    caption.className = "label";
    caption.textContent = label;
    for (const badge of badges) {
      if (!badge.text) continue;
      const tag = document.createElement("span");
      tag.className = `badge ${badge.kind}`;
      tag.textContent = badge.text;
      caption.append(" ", tag);
    }
    element.appendChild(caption);
  }
  const body = document.createElement("span");
  body.className = "body";
  body.textContent = text;
  element.appendChild(body);
  if (fix) {
    const line = document.createElement("span");
    line.className = "fix";
    line.dataset.fix = fix;
    line.textContent = `fix: ${fix}`;
    element.appendChild(line);
  }
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
    add("hook", `hook ${message._hook} (${message.role})`, text,
      hookBadges("skill", message._hook_file));
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
    for (const entry of shown) {
      const badges = Array.isArray(entry.badges) ? entry.badges : [];
      add(entry.kind, entry.label, entry.text, badges, entry.fix);
    }
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
        closeOpenElicitations("not answered: the connection was lost");
        const why = event.reason ? ` (${event.reason})` : "";
        add("error", "error", `connection lost${why}; the request was cancelled`);
        turn = null;
      }
      setState("idle", "disconnected");
    };
  });
}

// A hook's system as its users call it (Claude Code, Codex, Gemini CLI, PicoClaw, OpenHarness,
// skill, Python) and its file, as badges; the class names the system for its colour.
function hookBadges(system, file) {
  const slug = (system || "").toLowerCase().replace(/[^a-z]+/g, "-");
  return [{ kind: `system system-${slug}`, text: system }, { kind: "file", text: file }];
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

// A choice field's [value, label] pairs: its enum (enumNames as labels) or its oneOf / anyOf
// entries (const, title); null when the field is not a choice.
function choicesOf(field) {
  if (Array.isArray(field.enum) && field.enum.length) {
    const names = Array.isArray(field.enumNames) ? field.enumNames : [];
    return field.enum.map((value, index) => [value, String(names[index] ?? value)]);
  }
  for (const key of ["oneOf", "anyOf"]) {
    if (Array.isArray(field[key]) && field[key].length) {
      return field[key].filter((entry) => entry && "const" in entry)
        .map((entry) => [entry.const, String(entry.title ?? entry.const)]);
    }
  }
  return null;
}

// One form control per schema field: a select for a choice (a multiple select for an array of
// choices), a checkbox for a boolean, a number
// input for numbers and integers, a text input otherwise. Browser validation is off: the
// server says what does not fit.
function fieldControl(name, field, required) {
  const row = document.createElement("label");
  row.className = "field";
  const title = document.createElement("span");
  title.className = "field-title";
  title.textContent = field.title || name;
  row.appendChild(title);
  if (required) {
    const mark = document.createElement("span");
    mark.className = "required";
    mark.textContent = "*";
    mark.title = "required";
    row.appendChild(mark);
  }
  let control;
  const choices = choicesOf(field);
  const items = field.type === "array" ? choicesOf(field.items || {}) : null;
  if (items) {
    control = document.createElement("select");
    control.multiple = true;
    for (const [value, label] of items) control.appendChild(new Option(label, String(value)));
    const chosen = Array.isArray(field.default) ? field.default.map(String) : [];
    for (const option of control.options) option.selected = chosen.includes(option.value);
    control.dataset.enum = JSON.stringify(items.map(([value]) => value));
  } else if (choices) {
    control = document.createElement("select");
    if (!required) control.appendChild(new Option("", ""));
    for (const [value, label] of choices) control.appendChild(new Option(label, String(value)));
    if (field.default !== undefined) control.value = String(field.default);
    control.dataset.enum = JSON.stringify(choices.map(([value]) => value));
  } else if (field.type === "boolean") {
    control = document.createElement("input");
    control.type = "checkbox";
    control.checked = field.default === true;
  } else {
    control = document.createElement("input");
    if (field.type === "integer" || field.type === "number") {
      control.type = "number";
      control.step = field.type === "integer" ? "1" : "any";
    } else {
      control.type = "text";
    }
    if (field.default !== undefined) control.value = String(field.default);
  }
  control.name = name;
  control.dataset.kind = field.type || "string";
  if (field.description) control.title = field.description;
  row.appendChild(control);
  return row;
}

// The form's values as the schema types them; empty fields are left out.
function formContent(fields) {
  const content = {};
  for (const control of fields.querySelectorAll("[name]")) {
    const kind = control.dataset.kind;
    if (kind === "boolean") {
      content[control.name] = control.checked;
    } else if (control.multiple) {
      const choices = JSON.parse(control.dataset.enum);
      content[control.name] = Array.from(control.selectedOptions)
        .map((option) => choices.find((value) => String(value) === option.value));
    } else if (control.value === "") {
      continue;
    } else if (control.dataset.enum) {
      const choices = JSON.parse(control.dataset.enum);
      content[control.name] = choices.find((value) => String(value) === control.value);
    } else if (kind === "integer" || kind === "number") {
      content[control.name] = Number(control.value);
    } else {
      content[control.name] = control.value;
    }
  }
  return content;
}

function safeUrl(text) {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch (error) {
    return null;
  }
}

// A server's request for input: the form (or the URL as a link) with Accept / Decline /
// Cancel. "elicitation_invalid" shows why the server refused the answer and lets the user fix
// it; "elicitation_closed" (or a lost connection) replaces the form with the outcome.
function askElicitation(frame) {
  const body = add("elicitation", `MCP server ${frame.server} asks`, frame.message);
  const element = body.parentElement;
  element.dataset.id = frame.id;
  const fields = document.createElement("form");
  fields.className = "fields";
  fields.noValidate = true;
  fields.addEventListener("submit", (event) => event.preventDefault());
  if (frame.mode === "url") {
    const href = safeUrl(frame.url || "");
    const link = document.createElement(href ? "a" : "span");
    link.className = "visit";
    link.textContent = frame.url || "";
    if (href) {
      link.href = href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
    }
    fields.appendChild(link);
  } else {
    const schema = frame.requested_schema || {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const [name, field] of Object.entries(schema.properties || {})) {
      fields.appendChild(fieldControl(name, field || {}, required.has(name)));
    }
  }
  element.appendChild(fields);
  const problem = document.createElement("div");
  problem.className = "problem";
  element.appendChild(problem);
  const buttons = document.createElement("span");
  buttons.className = "answers";
  for (const [label, action] of [["Accept", "accept"], ["Decline", "decline"],
    ["Cancel", "cancel"]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = action;
    button.textContent = label;
    button.addEventListener("click", () => {
      for (const each of buttons.querySelectorAll("button")) each.disabled = true;
      problem.textContent = "";
      const answer = { type: "elicitation", id: frame.id, action };
      if (action === "accept" && frame.mode !== "url") answer.content = formContent(fields);
      if (socket) socket.send(JSON.stringify(answer));
    });
    buttons.appendChild(button);
  }
  element.appendChild(buttons);
}

function refuseElicitation(id, error) {
  const element = log.querySelector(`.msg.elicitation[data-id="${id}"]`);
  if (!element) return;
  element.querySelector(".problem").textContent = error;
  for (const each of element.querySelectorAll(".answers button")) each.disabled = false;
}

function closeElicitation(id, outcome, action) {
  const element = log.querySelector(`.msg.elicitation[data-id="${id}"]`);
  if (!element) return;
  for (const part of element.querySelectorAll(".fields, .problem, .answers")) part.remove();
  element.classList.add(action === "accept" ? "accepted" : "refused");
  element.querySelector(".body").textContent += `\n→ ${outcome}`;
  delete element.dataset.id;
}

function closeOpenElicitations(outcome) {
  for (const element of log.querySelectorAll(".msg.elicitation[data-id]")) {
    closeElicitation(element.dataset.id, outcome, "cancel");
  }
}

const ELICITATION_OUTCOMES = { accept: "accepted", decline: "declined", cancel: "cancelled" };

function handleFrame(frame) {
  switch (frame.type) {
    case "elicitation_request":
      askElicitation(frame);
      break;
    case "elicitation_invalid":
      refuseElicitation(frame.id, frame.error);
      break;
    case "elicitation_closed":
      closeElicitation(frame.id, frame.by === "timeout" ? "cancelled: no answer in time"
        : ELICITATION_OUTCOMES[frame.action], frame.action);
      break;
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
      add("hook", `hook ${frame.name} (${frame.role})`, frame.content,
        hookBadges("skill", frame.file));
      break;
    case "skill_prompt":
      add("hook", `hook ${frame.skill ? `${frame.skill}/` : ""}${frame.hook} (${frame.role}, ` +
        `${frame.timing}, this call only)`, frame.content, hookBadges("skill", frame.file));
      break;
    case "hook_result": {
      const decision = frame.decision || (frame.status !== "ok" ? "failed" : frame.effect);
      const detail = frame.reason || frame.error;
      add(`note decision-${decision.replace(/[^a-z]+/g, "-")}`, "hook",
        `${frame.event_words || frame.event}: ${frame.hook} → ${frame.effect_words || frame.effect}` +
        (detail ? ` (${detail})` : ""),
        hookBadges(frame.system || frame.dialect, frame.file), frame.fix);
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
  const frame = {
    type: "chat", history, message: text, permission_prompts: true, skill_prompts: true,
  };
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
// Connect at once, so the status says from the start whether the server is there.
setState("idle", "connecting…");
connect().catch(() => setState("idle", "disconnected"));
