import { anthropic } from "./anthropic";
import { azure } from "./azure";
import type { Dialect } from "./base";
import { deepseek } from "./deepseek";
import { gemini } from "./gemini";
import { groq } from "./groq";
import { llamaServer } from "./llama-server";
import { lmstudio } from "./lmstudio";
import { localai } from "./localai";
import { mistral } from "./mistral";
import { ollama } from "./ollama";
import { openai } from "./openai";
import { openrouter } from "./openrouter";
import { together } from "./together";
import { vllm } from "./vllm";

export type { Dialect, DialectFlags } from "./base";
export { frames } from "./base";

export const DIALECTS: Dialect[] = [
  openai,
  azure,
  openrouter,
  groq,
  together,
  mistral,
  deepseek,
  gemini,
  anthropic,
  ollama,
  vllm,
  llamaServer,
  lmstudio,
  localai,
];
