package web

import (
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"net/http"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// commonTimezones are offered as suggestions; any IANA name is accepted.
var commonTimezones = []string{
	"UTC", "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Rome",
	"Europe/Amsterdam", "Europe/Stockholm", "Europe/Warsaw", "Europe/Athens", "Europe/Istanbul", "Europe/Kyiv", "Europe/Moscow",
	"Africa/Cairo", "Africa/Lagos", "Africa/Nairobi", "Africa/Johannesburg", "Asia/Dubai", "Asia/Tehran", "Asia/Karachi",
	"Asia/Kolkata", "Asia/Dhaka", "Asia/Bangkok", "Asia/Jakarta", "Asia/Shanghai", "Asia/Singapore", "Asia/Tokyo", "Asia/Seoul",
	"Australia/Perth", "Australia/Sydney", "Pacific/Auckland", "America/St_Johns", "America/Halifax", "America/New_York",
	"America/Chicago", "America/Denver", "America/Phoenix", "America/Los_Angeles", "America/Anchorage", "Pacific/Honolulu",
	"America/Mexico_City", "America/Bogota", "America/Lima", "America/Santiago", "America/Sao_Paulo", "America/Argentina/Buenos_Aires",
}

// dayPage is the Your day section.
type dayPage struct {
	Settings  contracts.AccountSettings
	Timezone  string // as typed (after a refused save) or stored
	Hours     []option
	Timezones []string
}

func (p *AccountPages) dayData(s contracts.AccountSettings, tz string, hour int) dayPage {
	dp := dayPage{Settings: s, Timezone: tz, Timezones: commonTimezones}
	for h := range 24 {
		dp.Hours = append(dp.Hours, option{Value: strconv.Itoa(h), Label: strconv.Itoa(h) + ":00", Selected: h == hour})
	}
	return dp
}

func (p *AccountPages) day(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav, v.Flash = "Your day", "settings", flash(r)
	s, err := p.svc.Settings.Settings(r.Context())
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	v.Data = settings("day", p.dayData(s, s.Timezone, s.RolloverHour))
	p.site.Render(w, r, "settings", v)
}

func (p *AccountPages) saveDay(w http.ResponseWriter, r *http.Request, v View) {
	v.Title, v.Nav = "Your day", "settings"
	tz := strings.TrimSpace(r.PostFormValue("timezone"))
	hour, herr := strconv.Atoi(r.PostFormValue("rolloverHour"))
	var err error
	if herr != nil {
		err = contracts.Errorf(contracts.KindInvalid, "choose the hour your day starts, 0 to 23")
	} else {
		_, err = p.svc.Settings.UpdateSettings(r.Context(), contracts.UpdateSettingsArgs{Timezone: &tz, RolloverHour: &hour})
	}
	if contracts.IsKind(err, contracts.KindInvalid) {
		s, serr := p.svc.Settings.Settings(r.Context())
		if serr != nil {
			p.site.Fail(w, r, v, serr)
			return
		}
		v.Error = contracts.MessageOf(err)
		v.Data = settings("day", p.dayData(s, tz, hour))
		p.site.R.Render(w, r, httperr.Status(contracts.KindInvalid), "settings", v)
		return
	}
	if err != nil {
		p.site.Fail(w, r, v, err)
		return
	}
	p.site.Audited(r, p.svc.Audit, contracts.ToolUpdateSettings, map[string]any{"timezone": tz, "rolloverHour": hour})
	SeeOther(w, r, "/settings/day?done=saved-day")
}
