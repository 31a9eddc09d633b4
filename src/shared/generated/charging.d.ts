/* GENERATED - do not edit. Made from schemas/charging.schema.json by `npm run gen:types`. */

/**
 * One charging session of the test vehicle.
 */
export interface ChargingRecord {
  /**
   * ID (read-only)
   */
  id?: number;
  /**
   * Charge Date
   */
  chargeDate?: string;
  /**
   * Project (read-only)
   */
  projectName?: string;
  /**
   * Vehicle No (read-only)
   */
  vehicleNo?: string;
  /**
   * Country
   */
  country?: string;
  /**
   * City
   */
  city?: string;
  /**
   * Longitude
   */
  lon?: number;
  /**
   * Latitude
   */
  lat?: number;
  /**
   * Address
   */
  address?: string;
  /**
   * Temperature (°C)
   */
  temperature?: number;
  /**
   * Odometer (km)
   */
  odometer?: number;
  /**
   * Start Charge Time
   */
  startChargeTime?: string;
  /**
   * End Charge Time
   */
  endChargeTime?: string;
  /**
   * Time to 80% (min)
   */
  chargeTo80Time?: number;
  /**
   * Total Charge Time (min)
   */
  totalChargeTime?: number;
  /**
   * Initial Range (km)
   */
  initialRange?: number;
  /**
   * End Range (km)
   */
  endRange?: number;
  /**
   * Charge Distance (read-only)
   */
  chargeDistance?: number;
  /**
   * Vehicle Start SOC (%)
   */
  vehicleStartSoc?: number;
  /**
   * Charger Start SOC (%)
   */
  chargerStartSoc?: number;
  /**
   * Vehicle End SOC (%)
   */
  vehicleEndSoc?: number;
  /**
   * Charger End SOC (%)
   */
  chargerEndSoc?: number;
  /**
   * Charge Energy (kWh)
   */
  chargeEnergy?: number;
  /**
   * Charger Brand
   */
  chargerBrand?: string;
  /**
   * Charger Manufacturer
   */
  chargerManufacturer?: string;
  /**
   * Charger Model
   */
  chargerModel?: string;
  /**
   * Rated Power (kW)
   */
  ratedPower?: number;
  /**
   * Charge Type
   */
  chargeType?: 'AC' | 'DC';
  /**
   * AC Input Voltage (V)
   */
  acInputVoltage?: number;
  /**
   * Tester
   */
  tester?: string;
  /**
   * Charge Result
   */
  chargeResult?: string;
  /**
   * Connectors
   */
  remark?: string;
}
