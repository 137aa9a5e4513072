import "server-only";
import { asNumber, isRecord } from "../project";
import { definePack, getJson, ToolWorldError } from "../registry";

// A fixed public service: the host is declared here in code, not typed by an admin, so it needs no site
// domain. The place comes from the tenant's config; the model supplies nothing.

export const OPEN_METEO = "https://api.open-meteo.com/v1/forecast";

// WMO weather interpretation codes, as Open-Meteo reports them.
const WMO: Record<number, string> = {
  0: "clear sky",
  1: "mainly clear",
  2: "partly cloudy",
  3: "overcast",
  45: "fog",
  48: "freezing fog",
  51: "light drizzle",
  53: "drizzle",
  55: "heavy drizzle",
  56: "freezing drizzle",
  57: "heavy freezing drizzle",
  61: "light rain",
  63: "rain",
  65: "heavy rain",
  66: "freezing rain",
  67: "heavy freezing rain",
  71: "light snow",
  73: "snow",
  75: "heavy snow",
  77: "snow grains",
  80: "light showers",
  81: "showers",
  82: "violent showers",
  85: "snow showers",
  86: "heavy snow showers",
  95: "thunderstorm",
  96: "thunderstorm with hail",
  99: "thunderstorm with heavy hail",
};

const conditions = (code: unknown) => {
  const n = asNumber(code);
  return n === undefined ? undefined : (WMO[n] ?? "unknown");
};

const first = (v: unknown) => (Array.isArray(v) ? v[0] : undefined);

export const weather = definePack({
  id: "get_weather",
  name: "Local weather",
  label: "Checking the weather",
  definition: {
    type: "function",
    function: {
      name: "get_weather",
      description:
        "Current weather and today's forecast at the business's location (useful for terrace seating, outdoor events, what to bring).",
      parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
    },
  },
  configFields: [
    {
      key: "placeName",
      label: "Place name",
      type: "text",
      required: true,
      maxLength: 80,
      placeholder: "Kyoto",
    },
    {
      key: "latitude",
      label: "Latitude",
      type: "number",
      required: true,
      min: -90,
      max: 90,
      placeholder: "35.0116",
    },
    {
      key: "longitude",
      label: "Longitude",
      type: "number",
      required: true,
      min: -180,
      max: 180,
      placeholder: "135.7681",
    },
    {
      key: "units",
      label: "Temperature unit",
      type: "select",
      default: "celsius",
      options: [
        { value: "celsius", label: "Celsius (°C)" },
        { value: "fahrenheit", label: "Fahrenheit (°F)" },
      ],
    },
  ],
  async run(config, _args, ctx) {
    const data = await getJson(OPEN_METEO, {
      signal: ctx.signal,
      query: {
        latitude: config.latitude,
        longitude: config.longitude,
        current: "temperature_2m,apparent_temperature,weather_code,wind_speed_10m,precipitation",
        daily: "weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max",
        timezone: "auto",
        forecast_days: 1,
        temperature_unit: config.units,
      },
    });
    if (!isRecord(data) || !isRecord(data.current) || !isRecord(data.daily))
      throw new ToolWorldError("The weather service answered without a forecast");
    const c = data.current;
    const d = data.daily;
    return {
      place: config.placeName,
      unit: config.units === "fahrenheit" ? "°F" : "°C",
      now: {
        temperature: asNumber(c.temperature_2m),
        feelsLike: asNumber(c.apparent_temperature),
        conditions: conditions(c.weather_code),
        windKmh: asNumber(c.wind_speed_10m),
        precipitationMm: asNumber(c.precipitation),
      },
      today: {
        min: asNumber(first(d.temperature_2m_min)),
        max: asNumber(first(d.temperature_2m_max)),
        conditions: conditions(first(d.weather_code)),
        chanceOfRainPercent: asNumber(first(d.precipitation_probability_max)),
      },
    };
  },

  category: "For every business",
  summary: "Gives the bot today's weather at your location (Open-Meteo, no key needed).",
  labels: {
    es: "Consultando el tiempo",
    fr: "Consultation de la météo",
    de: "Schaue nach dem Wetter",
    ja: "天気を確認しています",
  },
  example: {
    config: { placeName: "Kyoto", latitude: 35.0116, longitude: 135.7681, units: "celsius" },
    args: {},
    fixtures: {
      "/v1/forecast": {
        latitude: 35.0,
        longitude: 135.75,
        generationtime_ms: 0.05,
        utc_offset_seconds: 32400,
        timezone: "Asia/Tokyo",
        timezone_abbreviation: "JST",
        elevation: 52,
        current_units: { time: "iso8601", interval: "seconds", temperature_2m: "°C" },
        current: {
          time: "2025-06-01T14:00",
          interval: 900,
          temperature_2m: 24.3,
          apparent_temperature: 25.1,
          weather_code: 2,
          wind_speed_10m: 7.9,
          precipitation: 0,
        },
        daily_units: { time: "iso8601", temperature_2m_max: "°C" },
        daily: {
          time: ["2025-06-01"],
          weather_code: [3],
          temperature_2m_max: [27.4],
          temperature_2m_min: [17.2],
          precipitation_probability_max: [20],
        },
      },
    },
  },
});
