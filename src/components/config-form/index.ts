export { ConfigFields, type ConfigFieldsProps, fieldIds } from "./ConfigFields";
export * from "./form-data";
