/**
 * Sample vehicle figures. docs/PRODUCT.md: the Vehicle Status card and screen show hard-coded samples
 * and make no calls; there is no vehicle telemetry service yet.
 */
export const SAMPLE_VEHICLE = {
  vehicleNo: '636_green',
  model: 'EV Test Prototype',
  batteryPercent: 85,
  odometerKm: 12580,
  speedKmh: 0,
  lastDrive: '2026-11-20 17:42',
  lastCharge: '2026-11-20 19:05',
  counts: { drive: 128, charge: 46, issue: 37, poi: 215 },
} as const;
