/** Sample vehicle figures until there is a telemetry service, labelled as samples wherever they appear (docs/decisions/065). */
export const SAMPLE_VEHICLE = {
  vehicleNo: '636_green',
  batteryPercent: 85,
  odometerKm: 12580,
  speedKmh: 0,
  lastDrive: '2026-11-20 17:42',
  lastCharge: '2026-11-20 19:05',
} as const;
