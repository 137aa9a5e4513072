export { Card } from "./Card";
export { Field, InputField } from "./Field";
export { FormError, FormMessage } from "./FormError";
export { PageHeader } from "./PageHeader";
export { SubmitButton } from "./SubmitButton";
