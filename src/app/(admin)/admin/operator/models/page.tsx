import type { Metadata } from "next";
import { Card, PageHeader } from "@/components/ui";
import { requireOperator } from "@/lib/auth/guard";
import { detectLocalModelServers } from "@/lib/chat/local-models";
import { modelStatus } from "@/lib/chat/model";
import { presetFor, providerFor } from "@/lib/chat/providers";
import { env } from "@/lib/env";
import { adoptLocalModelAction, checkModelsAction } from "./actions";
import { CheckModelForm } from "./CheckForm";
import { LocalModelForm } from "./LocalModelForm";

export const metadata: Metadata = { title: "Models" };

export default async function ModelsPage() {
  await requireOperator();
  const e = env();
  const status = modelStatus(e);
  // Only a development machine with no model yet is probed: see src/lib/chat/local-models.ts.
  const local = !status.configured && e.NODE_ENV !== "production" ? await detectLocalModelServers() : [];
  return (
    <div className="max-w-4xl space-y-6">
      <PageHeader
        title="Models"
        description="The models tenants may choose, the server behind each and what it accepts."
      />
      <Card id="models">
        {status.configured ? (
          <ul className="space-y-1 text-sm">
            {status.models.map((m) => {
              const p = providerFor(e, m);
              return (
                <li key={m}>
                  <span className="font-mono">{m}</span> — {p?.baseURL ?? "https://api.openai.com/v1"} (
                  {p ? presetFor(p) : "openai"})
                </li>
              );
            })}
          </ul>
        ) : (
          <p className="text-sm">{status.reason}</p>
        )}
      </Card>
      {!status.configured && e.NODE_ENV !== "production" ? (
        <Card id="local" title="Found on this machine">
          {local.length > 0 ? (
            <div className="space-y-4">
              <p className="muted text-sm">
                A local model server answers on its usual address. Using it writes OPENAI_BASE_URL,
                OPENAI_PRESET and MICHI_MODELS to .env.local and takes effect at once, without a restart.
              </p>
              {local.map((server) => (
                <LocalModelForm key={server.preset} action={adoptLocalModelAction} server={server} />
              ))}
            </div>
          ) : (
            <p className="text-sm">
              No local model server answers on its usual address (Ollama on port 11434, LM Studio on 1234,
              llama.cpp&apos;s server on 8080). Start one, or set the variables above, then reload.
            </p>
          )}
        </Card>
      ) : null}
      <Card id="check" title="Check model">
        <p className="muted mb-3 text-sm">
          Runs a plain turn and a tool turn against each model&apos;s real server and says what works
          (streaming, usage, tools, two tools at once) and what the profile had to adapt. It uses a few
          hundred tokens per model. The same check runs from the command line:{" "}
          <code>npm run check:model</code>.
        </p>
        <CheckModelForm action={checkModelsAction} />
      </Card>
    </div>
  );
}
