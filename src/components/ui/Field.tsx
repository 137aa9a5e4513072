import type { InputHTMLAttributes, ReactNode } from "react";

// A labelled form control with its help text and error, wired for screen readers: the error and help are
// referenced by aria-describedby and the control is marked aria-invalid when the error is set. Required
// fields carry the `required` attribute rather than a bare asterisk, and the label stays plain text.

export type ControlProps = {
  id: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
  required?: boolean;
};

export type FieldProps = {
  id: string;
  label: ReactNode;
  help?: ReactNode;
  error?: string;
  required?: boolean;
  className?: string;
  /** Renders the control; spread the props it receives onto the input, select or textarea. */
  children: (control: ControlProps) => ReactNode;
};

export function Field({ id, label, help, error, required, className, children }: FieldProps) {
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [help ? helpId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className}>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      {children({
        id,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": describedBy,
        required: required || undefined,
      })}
      {help ? (
        <p id={helpId} className="help">
          {help}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export type InputFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "children"> & {
  id: string;
  name: string;
  label: ReactNode;
  help?: ReactNode;
  error?: string;
};

/** The common case: a single text-like <input> inside a Field. */
export function InputField({ id, label, help, error, required, className, ...input }: InputFieldProps) {
  return (
    <Field id={id} label={label} help={help} error={error} required={required} className={className}>
      {(control) => <input className="input" {...input} {...control} />}
    </Field>
  );
}
