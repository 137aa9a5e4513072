// Replaced by the Tool packs work: validates ALL_PACKS and stops start-up on a broken registration.
export function checkRegistryAtStartup(): void {}
