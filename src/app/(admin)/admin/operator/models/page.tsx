import type { Metadata } from "next";
import { Card, PageHeader } from "@/components/ui";
import { requireOperator } from "@/lib/auth/guard";
import { modelStatus } from "@/lib/chat/model";
import { presetFor, providerFor } from "@/lib/chat/providers";
import { env } from "@/lib/env";
import { checkModelsAction } from "./actions";
import { CheckModelForm } from "./CheckForm";

export const metadata: Metadata = { title: "Models" };

export default async function ModelsPage() {
  await requireOperator();
  const e = env();
  const status = modelStatus(e);
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
