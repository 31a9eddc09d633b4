/* GENERATED - do not edit. Made from schemas/poi.schema.json by `npm run gen:types`. */

/**
 * A point of interest recorded on the road.
 */
export interface PoiRecord {
  /**
   * ID (read-only)
   */
  id?: number;
  /**
   * Project (read-only)
   */
  projectName?: string;
  /**
   * Vehicle No (read-only)
   */
  vehicleNo?: string;
  /**
   * Title
   */
  title?: string;
  /**
   * Report Time
   */
  reportTime?: string;
  /**
   * Reporter
   */
  reporter?: string;
  /**
   * Country
   */
  country?: string;
  /**
   * City
   */
  city?: string;
  /**
   * Address
   */
  address?: string;
  /**
   * Longitude
   */
  lon?: number;
  /**
   * Latitude
   */
  lat?: number;
  /**
   * POI Type
   */
  tag1?:
    | '0° Longitude crossing'
    | 'Airport'
    | 'Arctic Environment'
    | 'Border Crossing'
    | 'Border Crossing Non EU country'
    | 'Bridge'
    | 'Charging station'
    | 'Coastal routes'
    | 'Country Capital City'
    | 'Country roads'
    | 'Densely populated area'
    | 'Ferries'
    | 'OEM Facility'
    | 'Highway'
    | 'Low Connectivity Area'
    | 'Maritime Networks'
    | 'Mountain area'
    | 'Navigation poor information'
    | 'Route Waypoint'
    | 'Special Road conditions for ADAS'
    | 'Time zone crossing'
    | 'Tunnel'
    | 'TV Tower'
    | 'Underground parking'
    | 'Weather and Environmental Challenges';
  /**
   * Secondary Tag
   */
  tag2?: string;
  /**
   * Status
   */
  status?: string;
  /**
   * Remark
   */
  remark?: string;
  /**
   * Task ID
   */
  taskId?: string;
  /**
   * No
   */
  no?: string;
  /**
   * POI Date
   */
  poiDate?: string;
  /**
   * Related Files
   */
  relatedFilesJson?: string;
}
