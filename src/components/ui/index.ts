export { Card } from "./Card";
export { Field, InputField } from "./Field";
export { FilterActions } from "./FilterActions";
export { FormError, FormMessage } from "./FormError";
export { PageHeader } from "./PageHeader";
export { SubmitButton } from "./SubmitButton";
