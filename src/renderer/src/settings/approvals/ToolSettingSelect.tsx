import { ToolApprovalSettingSchema, type ToolApprovalSetting } from '../../../../shared/approval';

export const TOOL_SETTING_LABELS: Readonly<Record<ToolApprovalSetting, string>> = {
  inherit: 'Use server setting',
  'auto-approve': 'Run without asking',
  'always-ask': 'Always ask',
};

/** The per-tool approval setting (tool > server > global). */
export function ToolSettingSelect({
  label,
  value,
  disabled,
  describedBy,
  inherited,
  onChange,
}: {
  label: string;
  value: ToolApprovalSetting;
  /** What "Use server setting" comes to now (`inheritedWords`): shown in the option. */
  inherited?: string;
  /** Locked by the organisation: `describedBy` names the note that says so. */
  disabled?: boolean;
  describedBy?: string;
  onChange(value: ToolApprovalSetting): void;
}): React.JSX.Element {
  return (
    <select
      className={`setting-select is-${value}`}
      aria-label={label}
      aria-describedby={describedBy}
      disabled={disabled}
      value={value}
      onChange={(event) => onChange(ToolApprovalSettingSchema.parse(event.target.value))}
    >
      {ToolApprovalSettingSchema.options.map((option) => (
        <option key={option} value={option}>
          {option === 'inherit' && inherited
            ? `${TOOL_SETTING_LABELS.inherit}: ${inherited}`
            : TOOL_SETTING_LABELS[option]}
        </option>
      ))}
    </select>
  );
}
