// An approval-gated write: send_message is HIGH risk, so the invoker asks the
// approval handler first (with the exact arguments) and waits at most
// ApprovalTimeout. A refusal arrives as a ToolError with status "denied".
try {
  const sent = await tools.send_message({ to: "ops@example.com", text: "nightly report is ready" });
  return { sent: true, to: sent.to };
} catch (e) {
  if (e instanceof ToolError && e.status === "denied") {
    return { sent: false, reason: e.reason };
  }
  throw e;
}
