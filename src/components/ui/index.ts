export { Card } from "./Card";
export { ExportLinks } from "./ExportLinks";
export { Field, InputField } from "./Field";
export { FilterBar, FilterSelect } from "./FilterBar";
export { FormError, FormMessage } from "./FormError";
export { PageHeader } from "./PageHeader";
export { SubmitButton } from "./SubmitButton";
export { VerifiedVisitor } from "./VerifiedVisitor";
