// Scenario 7 of ./bench.sh: the bench's tool loop as a Restate service. Each round is one call to
// the bench's fake model (the same chat-completions fake the agentrt side talks to) and one call of
// the tool it asks for, and each is a durable step: ctx.run journals its result in the Restate
// server before the loop goes on, so a crashed invocation resumes after its last finished step.
// The tool is read_doc's equivalent: a document's name in, a short text out, at once.
import "./node20.mjs";
import * as restate from "@restatedev/restate-sdk";

const MODEL = process.env.MODEL_URL; // http://127.0.0.1:<port>/v1

async function chat(messages) {
  const res = await fetch(MODEL + "/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench-model", messages }),
  });
  if (!res.ok) {
    throw new Error("the model answered " + res.status + ": " + (await res.text()));
  }
  return (await res.json()).choices[0].message;
}

function readDoc(args) {
  return "# " + args.path + "\n\nThe bench's document " + args.path + ".";
}

const agent = restate.service({
  name: "agent",
  handlers: {
    run: async (ctx, instruction) => {
      const messages = [
        { role: "system", content: "You are the bench agent." },
        { role: "user", content: instruction },
      ];
      for (;;) {
        const reply = await ctx.run("model", () => chat(messages));
        messages.push(reply);
        if (!reply.tool_calls || reply.tool_calls.length === 0) {
          return reply.content;
        }
        for (const call of reply.tool_calls) {
          const result = await ctx.run("tool " + call.function.name, () =>
            readDoc(JSON.parse(call.function.arguments)),
          );
          messages.push({ role: "tool", tool_call_id: call.id, content: result });
        }
      }
    },
  },
});

restate.serve({ services: [agent], port: Number(process.env.PORT) });
