export { Button, type ButtonProps, type ButtonVariant, buttonClass } from "./Button";
export { Card } from "./Card";
export { type ControlProps, Field, type FieldProps, InputField, type InputFieldProps } from "./Field";
export { FormError, FormMessage, FormSuccess } from "./FormError";
export { OneTimePassword } from "./OneTimePassword";
export { PageHeader } from "./PageHeader";
export { SubmitButton } from "./SubmitButton";
export { useKeptForm } from "./useKeptForm";
