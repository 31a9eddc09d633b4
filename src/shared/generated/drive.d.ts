/* GENERATED - do not edit. Made from schemas/drive.schema.json by `npm run gen:types`. */

/**
 * One drive of the test vehicle, from start to stop.
 */
export interface DriveRecord {
  /**
   * ID (read-only)
   */
  id?: number;
  /**
   * Record No
   */
  driveRecordNo?: string;
  /**
   * Drive Date
   */
  driveDate?: string;
  /**
   * Project (read-only)
   */
  projectName?: string;
  /**
   * Vehicle No (read-only)
   */
  vehicleNo?: string;
  /**
   * Start Time
   */
  startTime?: string;
  /**
   * End Time
   */
  stopTime?: string;
  /**
   * Travel Time (min)
   */
  travelTime?: number;
  /**
   * Travel Distance (km)
   */
  travelDistance?: number;
  /**
   * Start Odometer (km)
   */
  startOdometer?: number;
  /**
   * Stop Odometer (km)
   */
  stopOdometer?: number;
  /**
   * Start Range (km)
   */
  startRange?: number;
  /**
   * Stop Range (km)
   */
  stopRange?: number;
  /**
   * Average Speed (km/h)
   */
  averageSpeed?: number;
  /**
   * Driver
   */
  driver?: string;
  /**
   * Start Location
   */
  startLocation?: string;
  /**
   * End Location
   */
  stopLocation?: string;
  /**
   * City
   */
  city?: string;
  /**
   * Driving Mode
   */
  mode?: string;
  /**
   * Weather
   */
  weather?: string;
  /**
   * Energy Recovery
   */
  energyRecovery?: string;
  /**
   * Min Temperature (°C)
   */
  minTemperature?: number;
  /**
   * Max Temperature (°C)
   */
  maxTemperature?: number;
  /**
   * Vehicle Load
   */
  vehicleLoad?: string;
  /**
   * Time Period
   */
  timePeriod?: string;
  /**
   * Start Longitude
   */
  startLon?: number;
  /**
   * Start Latitude
   */
  startLat?: number;
  /**
   * Stop Longitude
   */
  stopLon?: number;
  /**
   * Stop Latitude
   */
  stopLat?: number;
}
