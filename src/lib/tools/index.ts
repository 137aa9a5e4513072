import "server-only";
import type { ToolPack } from "./contract";
import { appointmentSlots, bookAppointment } from "./packs/book-appointment";
import { stock } from "./packs/check-stock";
import { fetchJson } from "./packs/fetch-json";
import { businessInfo } from "./packs/get-business-info";
import { menu } from "./packs/get-menu";
import { openingStatus } from "./packs/get-opening-status";
import { weather } from "./packs/get-weather";
import { postJsonPack } from "./packs/post-json";
import { requestBooking } from "./packs/request-booking";
import { requestHuman } from "./packs/request-human";
import { searchKnowledge } from "./packs/search-knowledge";

// Every pack the platform offers. Adding one is an import and an entry; start-up checks the list
// (src/lib/tools/check.ts) and the admin form grows the new pack's fields by itself.
export const ALL_PACKS: readonly ToolPack[] = [
  fetchJson,
  postJsonPack,
  openingStatus,
  businessInfo,
  weather,
  menu,
  stock,
  requestHuman,
  requestBooking,
  appointmentSlots,
  bookAppointment,
  searchKnowledge,
];

export function findPack(id: string, packs: readonly ToolPack[] = ALL_PACKS): ToolPack | undefined {
  return packs.find((p) => p.id === id);
}
